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
from typing import Any

from memvault.policy.detectors.base import Hit, Rule, run_rules
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
    length""".split()
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


def _assign_ok(m: re.Match[str], view: View) -> bool:
    return _value_ok(m.group("value"))


def _bare_ok(m: re.Match[str], view: View) -> bool:
    v = m.group("value").strip(".,;:!?\"'`()[]{}")
    if _SETTING.match(v) or not _value_ok(v.translate(_UNLEET)):
        return False  # "password min_length=12": a policy setting, not a password
    has_digit = re.search(r"\d", v) is not None
    has_symbol = re.search(r"[^\w\s]", v) is not None
    has_letter = re.search(r"[A-Za-z]", v) is not None
    return has_letter and (has_digit or has_symbol) and _value_ok(v)


# "password m4n4g3r": a word in leetspeak is still a word
_UNLEET = str.maketrans("013457", "oieast")
_SETTING = re.compile(r"^[A-Za-z][A-Za-z_]{2,}[=:]")
# "the security answers feature was removed": the feature, not an answer.
_FEATURE_WORDS = re.compile(
    r"(?i)\b(?:feature|features|field|fields|flow|page|option|options|setting|settings|screen|"
    r"form|step|module|support|policy|policies|reset|prompt|section|tab|column|table)\b"
)


def _security_answer_ok(m: re.Match[str], view: View) -> bool:
    text = m.group()
    if _FEATURE_WORDS.search(text):
        return False
    last = text.split()[-1].strip("\"'`.,;:!?").lower() if text.split() else ""
    return last not in _STATE_WORDS


_STATE_WORDS = frozenset(
    "removed deprecated disabled enabled optional required gone dropped retired".split()
)


def _pin_ok(m: re.Match[str], view: View) -> bool:
    digits = re.sub(r"\D", "", m.group("value"))
    return 4 <= len(digits) <= 8


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
    r"mot de passe|passwort|"
    r"kennwort|senha|wachtwoord|has(?:ł|l)o|пароль|parola|login credentials?"
)
# Word operators stand as words: "password manager for my parents" holds no "are".
_OP = (
    r"(?i:\s*(?:\b(?:is|was|are|es|est|ist|é|è)\b|=|:|:=|->|=>)\s*|\s+is\s+set\s+to\s+|"
    r"\s*-\s+)"
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
        rf"(?i:(?:\b|_)(?:{_PWD_WORDS})\b)(?i:[^\n:=]{{0,40}}?\b(?:for|of|to|on|de|del|da|do|di|"
        rf"du|des|della|für|pour|van|voor|för)\b[^\n:=]{{0,40}}?)?{_OP}[\"'`]?(?P<value>[^\s\"'`][^\n]{{0,60}})",
        "a password with its value",
        validate=_assign_ok,
    ),
    _r(
        "pin_assignment",
        "pin",
        r"(?i:\b(?:pin|pin code|pin number|passcode|unlock code|door code|alarm code|gate code|"
        r"safe code|lock code|security code|access code|código|code pin|geheimzahl|"
        r"(?:locker|lock|safe|padlock|bike lock) combination|combination|combo)\b)"
        r"(?i:[^\n:=]{0,30}?\b(?:for|of|to|on|at|in)\b[^\n:=]{0,30}?)?"
        rf"{_OP}(?P<value>\d(?:[\s-]?\d){{3,7}})\b",
        "a PIN or access code with its value",
        validate=_pin_ok,
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
        "password_cjk",
        "password",
        r"(?:密码|密碼|口令|パスワード|暗証番号|비밀번호|암호)[^\x21-\x7e\n]{0,6}?"
        r"(?P<value>[\x21-\x7e]{6,})",
        "a password written after its label (Chinese, Japanese, Korean)",
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
        r"|\bmother'?s maiden name\b[^\n]{0,10}?(?:is|was|:|=)\s*\S+"
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
        "seed_phrase",
        "private_key",
        r"(?i)\b(?:seed|recovery|mnemonic|backup|secret) (?:phrase|words?)\b[^\n]{0,20}?[:=]?\s*"
        r"(?:[a-z]+[\s,]+){11,23}[a-z]+"
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


def detect(doc: NormalizedText) -> list[Hit]:
    """Credential findings in every view of ``doc`` (one per rule)."""
    return run_rules(doc, RULES)
