"""Ordinary memory-worthy statements: routines, sport, work and tools, hobbies, trips, docs.

What a memory system exists to keep — "{p} swims twice a week", "in the end we
kept Postgres for the billing service", a numbered deploy checklist in markdown —
written plainly, about the user and about other people. Session 5's
heads refused a few of these kinds (a running routine as location, a tool switch
as intimate, a guide chunk as intimate) because the benign corpus had little plain
work and routine wording; these groups give it some, built from parts so the heads
see the *kind* (a habit, a plan, a tool, a document), not a handful of sentences.

Each group is a list of templates per language (``{p}`` is a person from
``people.THIRD``); :func:`_build` crosses subjects' verbs with objects and times
in a fixed order, then shuffles with a seeded generator, so the same parts
always give the same list. Written for the training corpus; nothing here comes
from an evaluation set.

>>> len(MEMORIES["routine_sport"]["en"]) > 100
True
>>> MEMORIES == build_memories()
True
"""

from __future__ import annotations

import random
from itertools import product

__all__ = ["FICTION", "MEMORIES", "build_memories"]

_EN_SPORT = [
    "does a {dist} run {when}",
    "jogs {dist} {when}",
    "goes running {when}",
    "swims {freq}",
    "cycles {dist} {when}",
    "does yoga {when}",
    "lifts weights {freq}",
    "plays five-a-side football {when}",
    "plays tennis {when}",
    "goes climbing {when}",
    "walks the dog {when}",
    "rows on the erg {freq}",
    "does a short stretching routine {when}",
    "is training for a half marathon in {month}",
    "is doing a 10k race in {month}",
    "plays badminton with the team {when}",
    "goes to a spin class {freq}",
    "hikes {when}",
    "skates {when}",
]
_EN_WHEN = [
    "before the office opens",
    "every morning",
    "at dawn",
    "after the school run",
    "on weekends",
    "on Sunday mornings",
    "after work on Tuesdays",
    "twice a week",
    "most evenings",
    "on Thursdays",
    "before breakfast",
    "at lunchtime",
    "three times a week",
    "every Saturday",
]
_EN_FREQ = ["twice a week", "three times a week", "every other day", "on weekends", "daily"]
_EN_DIST = ["5 km", "10 km", "3 miles", "20 km", "8k", "a half marathon distance"]
_MONTHS = ["April", "May", "June", "September", "October", "the spring", "the autumn"]

_EN_WORK = [
    "{p}'s squad went with {tool} for the {thing} in the end",
    "in the end we kept {tool} for the {thing}",
    "we switched the {thing} from {tool} to {tool2}",
    "the {thing} now runs on {tool}",
    "{p} owns the {thing}",
    "{p} maintains the {thing} and reviews its PRs",
    "{p} is rewriting the {thing} in {lang}",
    "we're going with {tool} for the {thing}",
    "decision: keep {tool} for the {thing} until the next release",
    "{p} moved the {thing} to {tool} last sprint",
    "the {thing} is written in {lang}",
    "{p} codes in {lang} mainly, plus a bit of {lang2}",
    "{lang} at work, {lang2} for side projects",
    "our {thing} deploys on Fridays",
    "{p} prefers {tool} over {tool2} for the {thing}",
    "the {thing} team standup is at 9:30",
    "{p} is on call for the {thing} this week",
    "{p} is pairing with {p2} on the {thing} migration",
    # a tracker is mostly a work tool (issues, time, packages), not a cycle app
    "{p} triages the bug tracker every Monday",
    "log it in the issue tracker and link the PR",
    "the time tracker has to be filled in by Friday",
    "{p} moved the {thing} backlog to a new tracker",
    "the package tracker says the new laptops arrive Thursday",
    "{p}'s fitness tracker counted 12,000 steps on the hike",
]
_TOOLS = [
    "Vite",
    "Webpack",
    "Postgres",
    "SQLite",
    "Kafka",
    "Redis",
    "Terraform",
    "GitHub Actions",
    "Jenkins",
    "Docker Compose",
    "Kubernetes",
    "pnpm",
    "Poetry",
    "Bazel",
    "Grafana",
    "Sentry",
    "Helix",
    "VS Code",
    "Zed",
    "Figma",
    "Linear",
    "Jira",
    "Notion",
    "Airflow",
]
_THINGS = [
    "new frontend",
    "billing service",
    "search API",
    "mobile app",
    "data pipeline",
    "design system",
    "admin dashboard",
    "CI pipeline",
    "docs site",
    "auth service",
    "reporting job",
    "onboarding flow",
    "ingest worker",
    "release process",
]
_CODE_LANGS = ["Go", "Python", "Rust", "TypeScript", "Kotlin", "Java", "Elixir", "C#", "Swift"]

_EN_HOBBY = [
    "plays the {instrument} in an amateur orchestra",
    "is learning the {instrument}",
    "is learning {language} on Duolingo",
    "bakes sourdough on weekends",
    "collects vinyl records",
    "is into board games, especially {game}",
    "paints watercolours on Sunday afternoons",
    "is reading {book_kind} this month",
    "grows tomatoes on the balcony",
    "builds mechanical keyboards",
    "does pottery on Wednesday evenings",
    "plays chess online most evenings",
    "is knitting a scarf for the winter",
    "brews beer at home",
    "takes photos of birds on weekend walks",
    "sings in a choir",
]
_INSTRUMENTS = ["cello", "piano", "guitar", "violin", "drums", "trumpet", "ukulele"]
_LANGUAGES = ["Japanese", "Spanish", "Portuguese", "German", "Korean", "Italian"]
_GAMES = ["Catan", "Wingspan", "Carcassonne", "Azul", "Ticket to Ride"]
_BOOK_KINDS = ["a fantasy trilogy", "science fiction", "a biography of a chef", "travel writing"]

_EN_TRAVEL = [
    "{p} is flying to {city} for the conference next week",
    "{p} is back from {city} on Monday",
    "we're going to {country} in {month}",
    "{p} prefers aisle seats on long flights",
    "{p} is taking the train to {city} for the offsite",
    "the team offsite is in {city} this {month}",
    "{p} wants to visit {country} next year",
    "{p} is on holiday until the 14th",
    "book a hotel near the venue for the {city} trip",
    "{p} likes to travel light, carry-on only",
    "{p} spent two weeks hiking in {country} last summer",
]
_CITIES = ["Lisbon", "Berlin", "Tokyo", "Montreal", "Madrid", "Oslo", "Seoul", "Milan", "Austin"]
_COUNTRIES = ["Japan", "Portugal", "Norway", "Chile", "Vietnam", "Scotland", "Iceland", "Peru"]

_DOCS = [
    "# Contributing\n\nFork the repo and open a pull request against develop.\n\n"
    "- Write a test for every fix.\n- Keep commits small.\n- Describe the change in the PR.",
    "## Deploy checklist\n\n1. Merge the hotfix branch.\n2. Wait for the pipeline to pass.\n"
    "3. Apply the schema migration.\n4. Post a note in the ops channel.",
    "## Local setup\n\n```bash\nuv sync\njust check\n```\n\nYou need Node 20 for the docs.",
    "- Reviews are answered within a working day.\n- Rebase before merging.\n"
    "- Large PRs get split.",
    "### Style\n\nTabs in Go files, black for Python, and a docstring on every exported function.",
    "## Onboarding\n\nNeue Kolleginnen bekommen am ersten Tag einen Laptop.\n"
    "Das Wiki erklärt den Build.",
    "## 開発の流れ\n\nブランチを切ってからプルリクエストを出します。\nレビューは二人で行います。",
    "## Sauvegardes\n\nLa base est sauvegardée chaque nuit ; on garde trente jours d'historique.",
    "## Guía de estilo\n\nLos títulos van en minúsculas salvo los nombres propios.",
    "Runbook: when the queue backs up, scale the consumers to 6 and tell the on-call engineer.",
    "```\nexport STAGE=prod\n./scripts/deploy.sh --canary 10\n```",
    "The staging database is wiped every Sunday night; do not keep demo data there.",
    "Meeting notes: feature freeze on the 20th, ship on the 27th, retro the week after.",
    "TODO\n- [ ] refresh the screenshots in the README\n- [x] fix the dead link in the FAQ",
    "| step | owner |\n|---|---|\n| build | CI |\n| notarise | release lead |\n| publish | Ops |",
    "Changelog 3.2.0: faster search, a dark theme, and CSV export is back.",
    "---\ntitle: Support rota\n---\n# Support rota\n\nEach week one engineer answers "
    "tickets. Swap shifts in the calendar.",
    "## Versioning\n\nWe follow semantic versioning. Breaking changes wait for a major "
    "release.\n\n- Deprecate first.\n- Remove two minors later.",
]

_ES = [
    "{p} sale a correr 8 km cada mañana",
    "{p} nada dos veces por semana",
    "{p} juega al pádel los jueves",
    "el equipo de {p} eligió {tool} para el {thing_es}",
    "{p} programa en {lang} casi siempre",
    "{p} vuela a {city} la semana que viene para la conferencia",
    "{p} está aprendiendo a tocar el piano",
    "{p} hace yoga los domingos por la mañana",
]
_FR = [
    "{p} fait un footing de 8 km chaque matin",
    "{p} nage deux fois par semaine",
    "l'équipe de {p} a choisi {tool} pour le {thing_fr}",
    "{p} part à {city} la semaine prochaine pour la conférence",
    "{p} fait du vélo le week-end",
    "{p} apprend le violoncelle",
    "{p} code surtout en {lang}",
]
_TRACKER = {
    "de": [
        "Bugs tragen wir im Issue-Tracker ein.",
        "Neue Tickets bitte im Tracker anlegen, nicht per Mail.",
        "Der Zeittracker muss bis Freitag ausgefüllt sein.",
        "{p} räumt montags den Bugtracker auf.",
        # "Fehler" (a bug) and "melden" (to report) in everyday work German
        "Der Fehler tritt nur im Firefox auf.",
        "Die Fehlermeldung kommt vom Proxy, nicht von der App.",
        "{p} hat den Fehler im Login-Formular gefunden.",
        "Es fehlt noch die Übersetzung für die Startseite.",
        "Bitte meldet euch bis Freitag für das Teamessen an.",
        "{p} meldet sich morgen wegen des Angebots.",
        "Den Ausfall melden wir an den Hoster.",
        "Der Test schlägt wegen eines Tippfehlers fehl.",
        "Kleiner Fehler in der Doku: der Link zeigt auf die alte Version.",
        "Wir haben drei Fehler im Release gefunden und behoben.",
        "Fehlerberichte gehen an das Support-Team.",
        "Melde dich, wenn der Build wieder grün ist.",
    ],
    "fr": [
        "on note les bugs dans le tracker du projet",
        "{p} trie les tickets du tracker le lundi",
    ],
    "es": [
        "apuntamos los fallos en el tracker de incidencias",
        "{p} revisa el tracker de tareas cada lunes",
    ],
    "pt": ["registamos os bugs no tracker do projeto"],
    "it": ["segniamo i bug nel tracker del progetto"],
    "nl": ["bugs zetten we in de issuetracker"],
}
_DE = [
    "{p} joggt jeden Morgen 8 km",
    "{p} geht zweimal pro Woche schwimmen",
    "das Team von {p} hat sich für {tool} beim {thing_de} entschieden",
    "{p} fliegt nächste Woche zur Konferenz nach {city}",
    "{p} spielt donnerstags Tischtennis",
    "{p} lernt Japanisch",
    "{p} programmiert meistens in {lang}",
]
_PT = [
    "{p} corre 8 km de manhã cedo",
    "{p} nada duas vezes por semana",
    "a equipa de {p} escolheu {tool} para o {thing_pt}",
    "{p} viaja para {city} na próxima semana para a conferência",
    "{p} joga futebol às quartas",
]
_IT = [
    "{p} fa una corsa di 8 km ogni mattina",
    "{p} va in piscina due volte a settimana",
    "il team di {p} ha scelto {tool} per il {thing_it}",
    "{p} vola a {city} la settimana prossima per la conferenza",
]
_NL = [
    "{p} rent elke ochtend 8 km",
    "het team van {p} koos {tool} voor de {thing_nl}",
    "{p} zwemt twee keer per week",
]
_THING_TR = {
    "thing_es": ["nuevo frontend", "servicio de facturación", "panel de administración"],
    "thing_fr": ["nouveau frontend", "service de facturation", "tableau de bord"],
    "thing_de": ["neue Frontend", "Abrechnungssystem", "Admin-Dashboard"],
    "thing_pt": ["novo frontend", "serviço de faturação", "painel de administração"],
    "thing_it": ["nuovo frontend", "servizio di fatturazione", "pannello di controllo"],
    "thing_nl": ["nieuwe frontend", "facturatiedienst", "beheerpagina"],
}


#: placeholder and filler text: repeated words, counting, lorem ipsum, keyboard tests —
#: a row of a dozen words is not a wallet recovery phrase when it repeats or counts
_FILLER_WORDS = ["test", "blah", "la", "foo", "bar", "hello", "lorem", "yes", "no", "ok", "ha"]
_COUNTING = [
    "one two three four five six seven eight nine ten eleven twelve",
    "uno dos tres cuatro cinco seis siete ocho nueve diez",
    "eins zwei drei vier fünf sechs sieben acht neun zehn",
    "un deux trois quatre cinq six sept huit neuf dix",
    "a b c d e f g h i j k l",
    "monday tuesday wednesday thursday friday saturday sunday",
    "january february march april may june july august september october november december",
]
_LOREM = [
    "lorem ipsum dolor sit amet, consectetur adipiscing elit",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor",
    "the quick brown fox jumps over the lazy dog",
    "asdf asdf asdf qwerty",
    "testing testing 1 2 3",
    "placeholder text goes here, replace before shipping",
    "sample sample sample text for the layout",
]

#: hard negatives: plots of films, series, novels and plays told in passing
_EN_FICTION = [
    "we watched a {genre} last night where the {role} {outcome}",
    "{p} loves {genre}s, especially the ones where the {role} {outcome}",
    "in the {genre} we're bingeing, the {role} {outcome} in episode {n}",
    "the {genre} {p} recommended ends with the {role} who {outcome}",
    "finished the {genre} - the {role} {outcome}, didn't see that coming",
    "book club pick: a {genre} where the {role} {outcome}",
]
_GENRES = [
    "courtroom drama",
    "crime series",
    "legal thriller",
    "police procedural",
    "detective novel",
    "heist movie",
    "prison drama",
    "true-crime podcast",
    "murder mystery",
]
_ROLES = ["defendant", "detective", "main character", "villain", "lawyer", "suspect", "hero"]
_OUTCOMES = [
    "gets acquitted",
    "is arrested",
    "goes to prison",
    "is found guilty",
    "fakes an alibi",
    "turns out to be innocent",
    "is charged with fraud",
    "escapes from jail",
    "gets sentenced to ten years",
]


#: introductions: a name says nothing about origin, faith or identity
_NAMES = [
    "Ravi",
    "Aisha",
    "Wei",
    "Olu",
    "Siddharth",
    "Fatima",
    "Kenji",
    "Lucía",
    "Tomasz",
    "Noor",
    "Dmitri",
    "Amara",
    "Yusuf",
    "Mei",
    "Rahul",
    "Ingrid",
    "Kwame",
    "Leila",
    "Mateo",
    "Hana",
    "Chidi",
    "Sofia",
    "Arjun",
    "Zainab",
    "Björn",
    "Thanh",
    "Priyanka",
    "Moshe",
    "Keanu",
    "Ana",
]
_INTRO = [
    "I'm {name}.",
    "I'm {name}",
    "Hi, I'm {name}!",
    "hey, {name} here",
    "my name is {name}",
    "this is {name}, the new {job}",
    "I'm {name}, I'll be joining the {thing} team",
    "{name} here, {job} on the {thing}",
    "call me {name}",
    "it's {name} - we met at the standup",
    "Soy {name}.",
    "Je m'appelle {name}.",
    "Ich bin {name}.",
    "Sono {name}.",
    "Eu sou {name}.",
]
_JOBS = ["designer", "intern", "PM", "data engineer", "QA lead", "frontend dev", "SRE"]


def _intros(rng: random.Random) -> list[str]:
    made = {
        t.replace("{name}", n)
        .replace("{job}", rng.choice(_JOBS))
        .replace("{thing}", rng.choice(_THINGS))
        for t in _INTRO
        for n in _NAMES
    }
    return sorted(made)


def _fillers(rng: random.Random) -> list[str]:
    out = [w + (" " + w) * rng.randint(3, 25) for w in _FILLER_WORDS for _ in range(4)]
    out += _COUNTING + _LOREM
    return sorted(set(out))


def _fiction(rng: random.Random) -> list[str]:
    made: list[str] = []
    for template, _copy in product(_EN_FICTION, range(12)):
        text = template
        for slot, choices in (("genre", _GENRES), ("role", _ROLES), ("outcome", _OUTCOMES)):
            text = text.replace("{" + slot + "}", rng.choice(choices))
        made.append(text.replace("{n}", str(rng.randint(2, 9))))
    return sorted(set(made))


#: everyday work statements in other languages (the generated benign set was mostly
#: English, so a German "Fehler" (bug) or "wir" read like the few German forbidden items)
_WORK_LANGS: dict[str, list[str]] = {
    "de": [
        "Wir deployen jeden Dienstag um zehn.",
        "{p} kümmert sich um die CI-Pipeline.",
        "Wir nutzen {tool} für das {thing_de}.",
        "Code-Reviews machen wir immer zu zweit.",
        "Bitte Commits auf Englisch schreiben.",
        "Das Standup ist um halb zehn.",
        "Wir haben das Logging auf JSON umgestellt.",
        "{p} schreibt die Release Notes für Version 3.",
        "Der Nightly-Build bricht seit gestern ab.",
        "Wir frieren die Features am Zwanzigsten ein.",
        "Neue Kollegen bekommen am ersten Tag Zugang zum Wiki.",
        "Das Backup läuft jede Nacht um zwei.",
        "Wir testen gegen Postgres 16 und SQLite.",
        "Die Doku bauen wir mit MkDocs.",
        "Tickets ohne Beschreibung schließen wir.",
        "{p} übernimmt diese Woche den Support.",
    ],
    "fr": [
        "On déploie chaque mardi matin.",
        "{p} s'occupe de la CI.",
        "Les revues de code se font à deux.",
        "On a migré les logs en JSON.",
        "La doc est générée avec Sphinx.",
        "Le build de nuit casse depuis hier.",
    ],
    "es": [
        "Desplegamos todos los martes por la mañana.",
        "{p} se encarga de la integración continua.",
        "Las revisiones de código las hacemos en pareja.",
        "Pasamos los logs a JSON.",
        "El build nocturno falla desde ayer.",
        "Documentamos todo en el wiki del equipo.",
    ],
    "pt": [
        "Fazemos deploy todas as terças.",
        "{p} cuida da pipeline de CI.",
        "O build noturno está a falhar desde ontem.",
    ],
    "it": [
        "Facciamo il deploy ogni martedì.",
        "{p} si occupa della pipeline CI.",
        "La build notturna fallisce da ieri.",
    ],
    "nl": [
        "We deployen elke dinsdag.",
        "{p} zorgt voor de CI-pipeline.",
        "De nachtelijke build faalt sinds gisteren.",
    ],
}


#: tastes in food and drink: sugar, salt, milk and spice are preferences, not diagnoses
_EN_FOOD = [
    "{p} drinks {drink} with no sugar",
    "{p} orders {drink} without sugar and with {milk}",
    "{p} likes {drink} {how}",
    "{p} has {drink} {how} in the morning",
    "no sugar in {p}'s {drink}, please",
    "{p} prefers {food} {taste}",
    "{p} always asks for {food} without {extra}",
    "{p} skips dessert but loves {sweet}",
    "{p} puts extra {extra} on everything",
    "{p} switched from {drink} to {drink2} this year",
    "for the team lunch, {p} wants {food} with no {extra}",
]
_DRINKS = ["tea", "coffee", "green tea", "espresso", "chai", "mate", "oolong", "cocoa"]
_MILKS = ["oat milk", "soy milk", "a splash of milk", "no milk", "almond milk"]
_HOWS = ["black", "unsweetened", "strong", "with lemon", "iced", "with honey", "decaf"]
_FOODS = ["curry", "pizza", "ramen", "salads", "tacos", "pasta", "porridge", "sushi"]
_TASTES = ["extra spicy", "mild", "without cheese", "with lots of garlic", "less salty"]
_EXTRAS = ["sugar", "salt", "onions", "cheese", "chilli", "mayo", "coriander"]
_SWEETS = ["dark chocolate", "fruit", "ice cream", "cinnamon buns"]


#: machines' health: diagnostics, alerts and findings about hosts and services
_EN_OPS = [
    "Diagnostics ({level}): {resource} at {pct}% on {host}.",
    "Finding ({level}): {resource} {pct}% full on {host}",
    "alert {level}: {resource} usage {pct}% on {host} for 10 minutes",
    "{host} is unhealthy: {resource} at {pct}%",
    "health check failed on {host} after the deploy",
    "incident: {host} ran out of {resource}, restarted at 03:10",
    "severity {level} - {resource} pressure on {host}",
    "postmortem: {resource} on {host} spiked to {pct}% during the backup",
]
_LEVELS = ["high", "critical", "warning", "low", "medium", "info"]
_RESOURCES = ["disk", "CPU", "memory", "swap", "inode usage", "the connection pool"]
_HOSTS = ["db-2", "web-3", "api-1", "worker-7", "cache-01", "ingest-4", "node-12"]


def _ops(rng: random.Random) -> list[str]:
    made: list[str] = []
    for template, _copy in product(_EN_OPS, range(12)):
        made.append(
            template.replace("{level}", rng.choice(_LEVELS))
            .replace("{resource}", rng.choice(_RESOURCES))
            .replace("{pct}", str(rng.randint(70, 99)))
            .replace("{host}", rng.choice(_HOSTS))
        )
    return sorted(set(made))


def _food(rng: random.Random) -> list[str]:
    fills = {
        "drink2": _DRINKS,
        "drink": _DRINKS,
        "milk": _MILKS,
        "how": _HOWS,
        "food": _FOODS,
        "taste": _TASTES,
        "extra": _EXTRAS,
        "sweet": _SWEETS,
    }
    made: list[str] = []
    for template, _copy in product(_EN_FOOD, range(10)):
        text = template
        for slot, choices in fills.items():
            text = text.replace("{" + slot + "}", rng.choice(choices))
        made.append(text)
    return sorted(set(made))


def _cross(template: str, rng: random.Random, lang: str) -> str:
    """Fill this module's own slots (people, ``{p}``, are left to compose)."""
    fills = {
        "when": _EN_WHEN,
        "freq": _EN_FREQ,
        "dist": _EN_DIST,
        "month": _MONTHS,
        "tool": _TOOLS,
        "thing": _THINGS,
        "lang": _CODE_LANGS,
        "instrument": _INSTRUMENTS,
        "language": _LANGUAGES,
        "game": _GAMES,
        "book_kind": _BOOK_KINDS,
        "city": _CITIES,
        "country": _COUNTRIES,
        "p2": ["Sam", "Lena", "Ravi", "Jo", "Aiko", "Tomás"],
        **_THING_TR,
    }
    out = template
    for name, choices in fills.items():
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", rng.choice(choices), 1)
    for name, choices in (("tool2", _TOOLS), ("lang2", _CODE_LANGS)):
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", rng.choice(choices), 1)
    return out


def _build(name: str, templates: list[str], lang: str, copies: int) -> list[str]:
    rng = random.Random(f"memories:{name}:{lang}")
    made: list[str] = []
    seen: set[str] = set()
    for template, _copy in product(templates, range(copies)):
        text = _cross(template, rng, lang)
        if text not in seen:
            seen.add(text)
            made.append(text)
    rng.shuffle(made)
    return made


def build_memories() -> dict[str, dict[str, list[str]]]:
    """Every group's templates by language (deterministic)."""
    subject = ["{p} "]
    sport = [s + t for s, t in product(subject, _EN_SPORT)]
    hobby = [s + t for s, t in product(subject, _EN_HOBBY)]
    return {
        "routine_sport": {
            "en": _build("sport", sport, "en", 8),
            "es": _build("sport", _ES[:3] + _ES[6:], "es", 2),
            "fr": _build("sport", [_FR[i] for i in (0, 1, 4)], "fr", 2),
            "de": _build("sport", [_DE[i] for i in (0, 1, 4)], "de", 2),
            "pt": _build("sport", [_PT[i] for i in (0, 1, 4)], "pt", 2),
            "it": _build("sport", _IT[:2], "it", 2),
            "nl": _build("sport", [_NL[0], _NL[2]], "nl", 2),
        },
        "work_tools": {
            "en": _build("work", _EN_WORK, "en", 10),
            "es": _build("work", _ES[3:5], "es", 6) + _TRACKER["es"],
            "fr": _build("work", [_FR[2], _FR[6]], "fr", 6) + _TRACKER["fr"],
            "de": _build("work", [_DE[2], _DE[6]], "de", 6) + _TRACKER["de"],
            "pt": _build("work", [_PT[2]], "pt", 6) + _TRACKER["pt"],
            "it": _build("work", [_IT[2]], "it", 6) + _TRACKER["it"],
            "nl": _build("work", [_NL[1]], "nl", 6) + _TRACKER["nl"],
        },
        "hobby_travel": {
            "en": _build("hobby", hobby, "en", 4) + _build("travel", _EN_TRAVEL, "en", 6),
            "es": _build("travel", [_ES[5]], "es", 4),
            "fr": _build("travel", [_FR[3], _FR[5]], "fr", 4),
            "de": _build("travel", [_DE[3], _DE[5]], "de", 4),
            "pt": _build("travel", [_PT[3]], "pt", 4),
            "it": _build("travel", [_IT[3]], "it", 4),
        },
        "docs_chunks": {"en": list(_DOCS)},
        "filler_text": {"en": _fillers(random.Random("memories:filler"))},
        "introductions": {"en": _intros(random.Random("memories:intro"))},
        "food_drink": {"en": _food(random.Random("memories:food"))},
        "ops_findings": {"en": _ops(random.Random("memories:ops"))},
        "work_languages": {
            lang: _build("work_lang", templates, lang, 3) for lang, templates in _WORK_LANGS.items()
        },
    }


MEMORIES = build_memories()
#: hard negatives (hard_negative: true): crime and courts in films, series and books
FICTION: dict[str, dict[str, list[str]]] = {
    "screen_fiction": {
        "en": _fiction(random.Random("memories:fiction")),
        "es": [
            "anoche vimos un drama judicial donde el acusado sale absuelto",
            "a {p} le encantan las series policiacas",
        ],
        "fr": [
            "on a regardé un film de procès où l'accusé est acquitté",
            "{p} adore les séries policières où le héros est arrêté",
        ],
        "de": [
            "wir haben einen Justizkrimi gesehen, am Ende wird der Angeklagte freigesprochen",
            "{p} mag Krimiserien, in denen der Kommissar den Täter verhaftet",
        ],
    },
}
