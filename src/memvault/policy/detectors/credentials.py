"""Credentials and secrets (contract §4.6): formats that are secrets by shape.

Each rule is a vendor format (cloud keys, tokens, PEM blocks, JWTs), a
connection string that carries a password, or an assignment such as
``password: …`` / ``PIN is 4829`` whose value is not a placeholder. Mentions of
secrets without a value ("rotate the API key monthly") are not findings.

>>> from memvault.policy.normalize import normalize
>>> hits = detect(normalize("deploy bot uses ghp_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"))
>>> hits[0].detector
'credentials.github_token'
>>> detect(normalize("Remind the team that API keys expire every quarter."))
[]
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from memvault.policy.detectors import pins
from memvault.policy.detectors.base import Hit, Rule, run_rules
from memvault.policy.detectors.pins import pin_ok
from memvault.policy.detectors.spoken import on_spoken_view
from memvault.policy.normalize import NormalizedText, View

__all__ = ["RULES", "detect"]

_F = "credentials"

_PLACEHOLDER = re.compile(
    r"^(?:[<\[{(]|\$\{|%|\*+$|x{3,}|\.{3}|your[_-]|my[_-]?|example|placeholder|changeme$|"
    r"redacted|dummy|none$|null$|empty$|tbd$|todo$|\?+$|_+$|-+$)",
    re.IGNORECASE,
)
_NOT_A_VALUE = frozenset(
    """a an the is are was were be been being in on at of for to from with without by and or
    not no never must should will can could may might shall required needed mandatory managed
    stored kept saved set reset changed rotated expired expires wrong incorrect too strong weak long
    short same different hashed encrypted policy policies manager managers rules rule field fields
    length requirements requirement protected secure secured hidden shared sent updated missing
    blank empty optional here there this that it they them these those stored min minimum max
    maximum mínimo minimo mínima minima mindestens use never always chars characters caracteres
    length why how what when which where whether tips best common pourquoi comment warum wieso
    weshalb wie perché perche porquê""".split()
)
# Trigger: the "value" is a reference to where a secret lives, or a length policy.
# Why: `DB_PASSWORD = os.environ["DB_PASSWORD"]` and `password_min=12; 2fa=on`
#   name no secret: they are code and policy.
# Outcome: not a value (nothing to refuse).
_REFERENCE = re.compile(
    r"(?i)^(?:os\.environ|os\.getenv|getenv\(|process\.env|env\(|\$\{|\$[a-z_]+\b|settings\.|"
    r"config\.|secrets\.|vault:)|^\d{1,3}(?:[_ ][^\W\d]+)?[;,.]?$"
)


def _entropy(s: str) -> float:
    counts = Counter(s)
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_ARTICLE = frozenset({"the", "a", "an"})
_PLACEHOLDER_WORD = re.compile(
    r"(?i)^(?:changeme|change_me|example|sample|dummy|test|placeholder|secret|password|pass|"
    r"redacted|xxx+|\*+|none|null|empty|tbd|todo|foo|bar|foobar|value|your\w*)$"
)


def _value_ok(value: str) -> bool:
    v = value.strip().strip("\"'`.,;")
    if not v or _PLACEHOLDER.match(v):
        return False
    words = v.split()
    if _REFERENCE.match(v) or _REFERENCE.match(words[0]):
        return False
    first = words[0].lower().strip("\"'`.,;:")
    if _PLACEHOLDER_WORD.match(first):
        return False
    if first in _ARTICLE:
        # "the word 'blueberry' plus 77" is a value; "the same as before" is not.
        rest = " ".join(words[1:])
        return bool(re.search(r"[\"'`‘’“”]\S+[\"'`‘’“”]|\d", rest))
    return first not in _NOT_A_VALUE


# Between the label and its operator: the rules about passwords, not a password.
_ABOUT_PASSWORDS = re.compile(
    r"(?i)\b(?:rules?|polic(?:y|ies)|requirements?|managers?|reset|resets|field|hint|strength|"
    r"length|expiry|rotation|complexity|change|changes|format|politika\w*|regeln|r[èe]gles|"
    r"reglas|regole|regras)\b|ポリシー|ルール|规则|規則|要求|정책|규칙|最小|最低|最大|長さ|长度|길이|최소|"
    r"الحد"
)
_LENGTH_VALUE = re.compile(
    r"(?i)\d+\s*(?:文字|字|位|자리|자|桁|characters?|chars?|karakter\w*|caract[èe]res|zeichen|"
    r"caracteres|caratteri|символ\w*|znak\w*|tecken|tegn)"
)


def _assign_ok(m: re.Match[str], view: View) -> bool:
    if _ABOUT_PASSWORDS.search(m.group()[: m.start("value") - m.start()]):
        return False
    return _value_ok(m.group("value"))


def _bare_ok(m: re.Match[str], view: View) -> bool:
    v = m.group("value").strip(".,;:!?\"'`()[]{}")
    if _SETTING.match(v) or not _value_ok(v.translate(_UNLEET)):
        return False  # "password min_length=12": a policy setting, not a password
    if _ABOUT_PASSWORDS.match(v):
        return False  # "password manager,IT,in progress": the tool named, no value
    has_digit = re.search(r"\d", v) is not None
    has_symbol = re.search(r"[^\w\s]", v) is not None
    has_letter = re.search(r"[A-Za-z]", v) is not None
    return has_letter and (has_digit or has_symbol) and _value_ok(v)


# "password m4n4g3r": a word in leetspeak is still a word
_UNLEET = str.maketrans("013457", "oieast")
_SETTING = re.compile(r"^[A-Za-z][A-Za-z_]{2,}[=:]")
# "the security answers feature was removed": the feature, not an answer (words of a
# product's settings, and "removed" in several languages).
_FEATURE_LIST = (
    "feature features field fields flow page option options setting settings screen form "
    "step module support policy policies reset prompt section tab column table funktion feld "
    "einstellung fonction champ funci[oó]n campo funzione fun[çc][ãa]o entfernt eliminad\\w* "
    "supprim\\w* rimoss\\w* removid\\w* usuni\\w* удал\\w*"
).split()
_FEATURE_WORDS = re.compile(rf"(?i)\b(?:{'|'.join(_FEATURE_LIST)})\b")


def _security_answer_ok(m: re.Match[str], view: View) -> bool:
    text = m.group()
    if _FEATURE_WORDS.search(view.text[m.start() : m.end() + 40]):
        return False
    last = text.split()[-1].strip("\"'`.,;:!?").lower() if text.split() else ""
    return last not in _STATE_WORDS


_STATE_WORDS = frozenset(
    "removed deprecated disabled enabled optional required gone dropped retired".split()
)


def _script_ok(m: re.Match[str], view: View) -> bool:
    v = m.group("value").strip(".,;:!?\"'`()[]{}")
    if _LENGTH_VALUE.search(v) or _ABOUT_PASSWORDS.search(m.group()) or "=" in v:
        return False  # "パスワードは12文字以上": a length rule
    if re.fullmatch(r"\d{4,8}", v):
        return True  # a numeric password or PIN
    return bool(re.search(r"\d", v) or re.search(r"[^\w\s]", v)) and _value_ok(v)


def _security_field_ok(m: re.Match[str], view: View) -> bool:
    v = m.group("value").strip(".,;:!?\"'`()[]{}")
    return bool(v) and not v.isdigit() and _value_ok(v) and v.lower() not in _STATE_WORDS


def _pair_ok(m: re.Match[str], view: View) -> bool:
    """A strong password after an account name: letters, digits and a symbol."""
    v = m.group("value").strip(".,;\"'`()[]{}")
    if re.match(r"(?i)^(?:https?|www\.|[\w-]+\.(?:com|org|net|io|dev))", v):
        return False  # a URL or a host, not a password
    if _SETTING.match(v):
        return False  # "churn_v3 | features=tenure,plan": a table's next field, not a password
    sep = m.string[m.start("value") - 1]
    if sep == "/" and re.fullmatch(r"[a-z0-9][a-z0-9._~-]*(?:#[a-z][a-z0-9._-]*)?", v):
        return False  # a path or a slug ("guide-0/more#s0002.c01", "hotfix2/release-2.1.0")
    return (
        re.search(r"[A-Za-z]", v) is not None
        and re.search(r"\d", v) is not None
        and re.search(r"[^\w\s]", v) is not None
        and _value_ok(v)
    )


def _secret_ok(m: re.Match[str], view: View) -> bool:
    v = m.group("value")
    if _PLACEHOLDER.match(v) or not re.search(r"\d", v) or not re.search(r"[A-Za-z]", v):
        return False
    if re.fullmatch(r"[A-Z0-9_]+", v) and "_" in v:  # ENV_VAR_NAMES are names, not values
        return False
    return _entropy(v) >= 3.0


def _conn_ok(m: re.Match[str], view: View) -> bool:
    return _value_ok(m.group("value")) and m.group("value").lower() not in ("password", "pass")


def _r(name: str, label: str, pattern: str, reason: str, **kw: Any) -> Rule:
    return Rule.named(_F, name, label, pattern, reason, **kw)


_PWD_WORDS = (
    r"pass(?:word|wd|code|phrase)s?|pwd|pw|pass(?=\s*[:=])|pass phrase|contrase(?:ñ|n)a|"
    r"mot[ _]de[ _]passe|mdp|passwort|"
    r"kennwort|senha|wachtwoord|has(?:ł|l)o|пароль|parola|login credentials?|"
    r"contrasenya|şifre(?:si|m|n|niz)?|sifre(?:si|m|n|niz)?|heslo|lösenord|losenord|passord|adgangskode|salasana|"
    r"jelszó|jelszo|geslo|lozinka|κωδικός|סיסמה|sandi|kata sandi"
)
# Word operators stand as words: "password manager for my parents" holds no "are".
_OP = (
    # an operator word (is, es, ist, är …) or sign between a label and its value
    r"(?i:[\"']?\s*(?:\b(?:is|was|are|es|est|ist|é|è|är|er|jest|c'est|sono|era)\b|"
    # or a symbol
    r"=|:|：|:=|->|=>|→)\s*|\s+is\s+set\s+to\s+|\s*-\s+)"
)

RULES: tuple[Rule, ...] = (
    _r(
        "private_key",
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*(?:PRIVATE KEY|PRIVATE KEY BLOCK|CERTIFICATE)-----",
        "a PEM private key or certificate block",
    ),
    _r(
        "aws_access_key",
        "cloud_key",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b",
        "an AWS access key id",
    ),
    _r(
        "aws_secret_key",
        "cloud_key",
        r"(?i:aws|secret)[^\n]{0,40}?(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+=]*[0-9])"
        r"(?=[A-Za-z0-9/+=]*[a-z])(?=[A-Za-z0-9/+=]*[A-Z])[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
        "an AWS secret access key",
    ),
    _r("gcp_api_key", "cloud_key", r"\bAIza[0-9A-Za-z_\-]{35}\b", "a Google API key"),
    _r(
        "azure_key",
        "cloud_key",
        r"(?i:AccountKey|SharedAccessKey|sig)=[A-Za-z0-9+/%]{30,}",
        "an Azure storage key or SAS signature",
    ),
    _r(
        "github_token",
        "access_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b",
        "a GitHub token",
    ),
    _r("gitlab_token", "access_token", r"\bglpat-[A-Za-z0-9_\-]{20,}", "a GitLab token"),
    _r("slack_token", "access_token", r"\bxox[abposrce]-[A-Za-z0-9-]{10,}", "a Slack token"),
    _r(
        "webhook_url",
        "access_token",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+|"
        r"discord(?:app)?\.com/api/webhooks/\d+/\S+",
        "a secret webhook URL",
    ),
    _r(
        "stripe_key",
        "api_key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{20,}",
        "a Stripe key",
    ),
    _r(
        "llm_api_key",
        "api_key",
        r"\bsk-(?:proj-|ant-(?:api\d\d-)?|or-v1-)?[A-Za-z0-9_\-]{20,}",
        "an OpenAI/Anthropic-style API key",
    ),
    _r(
        "package_token",
        "access_token",
        r"\bnpm_[A-Za-z0-9]{30,}|\bpypi-[A-Za-z0-9_\-]{40,}|\bhf_[A-Za-z0-9]{30,}",
        "a package-registry or model-hub token",
    ),
    _r(
        "sendgrid_key",
        "api_key",
        r"\bSG\.[\w-]{16,}\.[\w-]{20,}|\bkey-[0-9a-f]{32}\b|\bSK[0-9a-f]{32}\b",
        "a SendGrid/Mailgun/Twilio key",
    ),
    _r(
        "telegram_token",
        "access_token",
        r"\b\d{8,10}:AA[A-Za-z0-9_\-]{30,}",
        "a Telegram bot token",
    ),
    _r(
        "jwt",
        "access_token",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        "a JSON Web Token",
    ),
    _r(
        "bearer",
        "access_token",
        r"(?i:\bbearer)\s+(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{16,}=*"
        r"|(?i:authorization:\s*basic)\s+[A-Za-z0-9+/]{8,}=*",
        "an HTTP authorization credential",
    ),
    _r(
        "connection_string",
        "connection_string",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]*:(?P<value>[^\s@/]{1,128})@[^\s]+",
        "a connection string with an embedded password",
        validate=_conn_ok,
    ),
    _r(
        "password_in_dsn",
        "connection_string",
        r"(?i:(?:^|[;\s])(?:password|pwd)\s*=\s*)(?P<value>[^;\s]+)",
        "a connection string with a password",
        validate=_assign_ok,
    ),
    _r(
        "password_assignment",
        "password",
        rf"(?i:(?:\b|_)(?:{_PWD_WORDS})\b)(?i:[^\n:=]{{0,40}}?\b(?:for|of|to|on|at|de|del|da|do|"
        rf"di|du|des|della|für|pour|van|voor|för|bei|chez|em|en|in|op|på|na|w|от|для|dla|"
        rf"kart\w*|til)\b[^\n:=]{{0,40}}?)?{_OP}[\"'`]?(?P<value>[^\s\"'`{{\[(<][^\n]{{0,60}})",
        "a password with its value",
        validate=_assign_ok,
    ),
    _r(
        "pin_assignment",
        "pin",
        r"(?i:(?:\b|_)(?:pinn?|pin code|pin number|passcode|unlock code|door code|alarm code|"
        r"gate code|safe code|lock code|security code|access code|código|code pin|geheimzahl|"
        r"(?:locker|lock|safe|padlock|bike lock) combination|combination|combo|puk|"
        r"pin-?(?:kod|koden|code|kodu|код)|kod pin|c[oó]digo pin|code secret|"
        r"(?:garage|opener|keypad|entry|building|gate|bankdosa)[- ]?(?:opener )?(?:code|kod|koden)|"
        r"пин-?код|пин|geheimnummer|codice pin)\b)"
        r"(?i:[^\n:=]{0,30}?\b(?:for|of|to|on|at|in|от|för|für|pour|para|per|voor|dla|til|di|de|du)\b[^\n:=]{0,30}?)?"
        rf"{_OP}[\"']?(?P<value>\d(?:[\s-]?\d){{3,7}})\b",
        "a PIN or access code with its value",
        validate=pin_ok,
    ),
    _r(
        "device_pin",
        "pin",
        # "ATM pin 4590 hai", "kart şifresi 3772", "暗証番号=4412", "비밀번호=4823"
        r"(?i:\b(?:atm|card|debit|credit|bank|phone|sim|upi|tablet|laptop|ipad|iphone|kart\w*)"
        r"(?:[ _-]|\s+)?"
        r"(?:pinn?|şifresi|sifresi)\b)\s*[:=]?\s*(?P<value>\d{4,8})\b"
        r"|(?:暗証番号|暗証|비밀번호|비번|密码|密碼|口令|支付密码|الرقم السري|الرمز السري|"
        r"קוד|пин-код|пинкод)[^\dA-Za-z@#\n]{0,20}?(?P<value2>\d{4,8})(?!\d)",
        "a PIN or passcode with its value",
    ),
    _r(
        "password_script",
        "password",
        # password words of scripts without word boundaries: "密码：Hua@2024", "パスワードは…"
        r"(?:密码|密碼|口令|パスワード|暗証番号|비밀번호|비번|암호|كلمة(?:_| )?(?:المرور|السر)|"
        r"סיסמה|пароль)[^\n:=：]{0,20}?(?:是|は|는|은|:|：|=|هو|هي|היא|הוא|—)?\s*"
        r"(?P<value>[^\s，。、]{4,64})",
        "a password with its value",
        validate=_script_ok,
    ),
    _r(
        "password_bare",
        "password",
        r"(?i:(?:\b|_)(?:password|passphrase|passcode|passwd|pwd|pw|contraseña|passwort|senha|"
        r"mot de passe)\b)\s+(?P<value>\S{6,})",
        "a password written right after its label",
        validate=_bare_ok,
    ),
    _r(
        "login_pair",
        "password",
        r"(?i)\b(?:login|log-in|credentials?|sign[- ]in|username and password|user/pass)\b"
        r"[^\n]{0,30}?(?:is|are|:|=)\s*\S+\s*(?:/|:|,| and )\s*(?:password\s+)?(?P<value>\S{6,})",
        "a login with its password",
        validate=_bare_ok,
    ),
    _r(
        "security_answer",
        "security_answer",
        r"(?i)\bsecurity (?:question|answer)s?\b[^\n]{0,40}?(?:is|was|:|=)\s*\S+"
        r"|\bmother'?s maiden name\b[^\n]{0,30}?(?:is|was|:|=)\s*\S+"
        r"|\b(?:first|childhood) (?:pet|school|car|street|teacher)'?s?(?: name)?\b[^\n]{0,6}?"
        r"(?:is|was|:|=)\s*\S+.{0,40}\b(?:security|answer|recovery|question)\b"
        r"|\banswer to (?:my |the )?(?:security|secret) question\b"
        r"|\banswer (?:to|for) [\"'‘“][^\"'’”]{3,60}[\"'’”]\s*[:=-]"
        r"|\b(?:name of (?:my |your |the )?first (?:school|pet|car|teacher|street|boss)|"
        r"city (?:where|"
        r"I was|you were) born|favou?rite (?:teacher|childhood friend))\b[\"'’”]?\s*(?:is|was|:|=)",
        "a security-question answer",
        validate=_security_answer_ok,
    ),
    _r(
        "security_answer_multilingual",
        "security_answer",
        # the question named in another language, then its answer
        r"(?i)(?:pregunta (?:de )?seguridad|respuesta (?:secreta|de seguridad)|question "
        r"(?:secr[eè]te|de s[ée]curit[ée])|r[ée]ponse secr[eè]te|sicherheitsfrage|"
        r"sicherheitsantwort|domanda (?:di )?sicurezza|risposta segreta|pergunta de seguran[çc]a|"
        r"resposta (?:secreta|de seguran[çc]a)|pytani\w* bezpiecze[nń]stwa|odpowied[zź] na "
        r"pytanie|[îi]ntrebarea de securitate|s[äa]kerhetsfr[åa]ga|g[üu]venlik sorusu|"
        r"контрольн\w* вопрос\w*|секретн\w* вопрос\w*|秘密の質問|密保问题|安全问题|보안 ?질문|"
        r"nom de jeune fille de (?:ma|sa|ta) m[èe]re|apellido de soltera|m[äa]dchenname)"
        r"[^\n]{0,60}(?:[:=→>]|\s-\s|\b(?:is|es|est|ist|é|è|är|to|jest|это)\b)\s*"
        r"[\"']?(?P<value>[^\s\"',;]{2,})",
        "a security-question answer",
        validate=_security_answer_ok,
    ),
    _r(
        "security_answer_field",
        "security_answer",
        # "secq_pet=Rusty", "first_pet=Rex; birth_city=…", {"mother_maiden_name": "…"}
        r"(?i)(?:\b|_)(?:secq_\w+|sec_q\w*|security_?(?:q|a|question|answer)\w*|first_?pet\w*|"
        r"mother_?maiden\w*|maiden_?name|birth_?city|city_?of_?birth|first_?(?:car|school|"
        r"teacher|street|boss)\w*|favou?rite_?(?:teacher|food|book)\w*)[\"']?\s*[:=]\s*[\"']?"
        r"(?P<value>[^\s\"',;]{2,})",
        "a security-question answer",
        validate=_security_field_ok,
    ),
    _r(
        "otpauth",
        "access_token",
        r"(?i)\botpauth://[th]otp/\S*?[?&]secret=[A-Z2-7]{16,}"
        r"|(?i:\b(?:totp|2fa|mfa|otp|authenticator|google authenticator) (?:secret|seed|key|"
        r"setup key)\b)[^\n]{0,12}?[:=]?\s*(?-i:[A-Z2-7]{4}(?:\s?[A-Z2-7]{4}){3,})\b",
        "a one-time-password secret",
    ),
    *pins.RULES,
    _r(
        "wifi_qr",
        "password",
        r"\bWIFI:(?:[TSHR]:[^;]*;)*P:(?P<value>[^;]{4,});",
        "a Wi-Fi network with its password",
    ),
    _r(
        "account_pair",
        "password",
        # "me@mail.example / Croissant!2026", "mary.oconnor59 / Shamrock1959!"
        # a name starts a token (not after "." or "+": "a.a.a.…" would be tried from every
        # letter, O(n^2) on a long dotted run)
        r"(?<![\w/.+-])[A-Za-z][\w.+-]*(?:@[\w-]+(?:\.[\w-]+)+|\d|\.[A-Za-z]+\d*)\s*(?:/|\||:)\s*"
        r"(?P<value>[^\s/|]{8,64})(?![\w/])",
        "an account name with its password",
        validate=_pair_ok,
    ),
    _r(
        "cli_password",
        "password",
        # "docker login -u x -p 'R3g#'", "mysql -u root -pS3cret", "curl -u dana:Hunter2!"
        r"\b(?:docker|podman|helm|mysql|mariadb|psql|mongo\w*|redis-cli|sshpass|curl|wget|"
        r"lftp|ftp|smbclient|xfreerdp|rdesktop|net use|twine|sqlcmd)\b[^\n]{0,80}?"
        r"(?:\s-p\s*|\s--password[= ]\s*|\s-u\s+[^\s:]+:|\s--pass(?:word)?=)[\"']?"
        r"(?P<value>[^\s\"']{4,64})",
        "a password on a command line",
        validate=_assign_ok,
    ),
    _r(
        "seed_phrase",
        "private_key",
        r"(?i)(?:\b(?:seed|recovery|mnemonic|backup|secret) (?:phrase|words?)\b|\bmnemonic\b|"
        r"\b(?:frase|palabras) (?:semilla|de recuperaci[oó]n)|phrase de r[ée]cup[ée]ration|"
        r"wiederherstellungs\w*|parole di recupero|frase (?:di recupero|de recupera[çc][ãa]o)|"
        r"palavras (?:de recupera[çc][ãa]o|da (?:minha )?carteira)|助记词|助記詞|"
        r"シードフレーズ|복구 ?(?:구문|문구)|сид-?фраз\w*)[^\n]{0,30}?[:=：]?\s*"
        r"(?:[^\W\d_]+[\s,]+){11,23}[^\W\d_]+"
        r"|(?i:\b(?:seed|recovery|mnemonic|backup|metamask|wallet)\b)[^\n:=]{0,20}[:=]\s*"
        r"(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8}\b",
        "a wallet recovery phrase",
    ),
    _r(
        "backup_codes",
        "access_token",
        r"(?i)\b(?:backup|recovery|2fa|mfa|otp|one-time) codes?\b[^\n]{0,20}?[:=]?\s*"
        r"\d{4,}(?:[\s,-]+\d{4,})+",
        "two-factor backup codes",
    ),
    _r(
        "generic_secret",
        "api_key",
        r"(?i:(?:\b|_)(?:api[_ -]?key|apikey|secret(?:[_ -]?key)?|access[_ -]?key(?:[_ -]?id)?|"
        r"(?:auth|access|refresh|bot|session|bearer|api|personal access)[_ -]?token|token|"
        r"client[_ -]?secret|private[_ -]?key|credentials?|session[_ -]?id|cookie|signing key)\b)"
        r"[^\n]{0,30}?[\s:=\"'`(]\s*[\"'`]?(?P<value>[A-Za-z0-9_\-./+=]{16,})",
        "a secret value next to a key/token/secret label",
        validate=_secret_ok,
    ),
)


# The same rules on numbers read out as words ("my PIN is four, four, one, nine").
SPOKEN_RULES = tuple(
    replace(r, views=("spoken",), validate=pins.spoken_pin_ok)
    if r.name == "credentials.pin_assignment"
    else replace(r, views=("spoken",))
    for r in RULES
)


def detect(doc: NormalizedText) -> list[Hit]:
    """Credential findings in every view of ``doc`` (one per rule), spoken numbers too.

    >>> from memvault.policy.normalize import normalize
    >>> [h.detector for h in detect(normalize("the alarm code is seven, three, three, one"))]
    ['credentials.pin_assignment']
    """
    return on_spoken_view(doc, SPOKEN_RULES, run_rules(doc, RULES))
