"""The offline screen's curated word lists: numbers, units, equivalences, antonyms, cues.

Every entry here changes verdicts, so each class has a test in tests/judge/test_screen.py.
Keys are lower-case lemmas (lemminflect's), phrases are tuples of lemmas. Concept IDs are
upper case so they never collide with a lemma.
"""

from __future__ import annotations

# The tables below are laid out by hand, several entries a line grouped by class and
# language, so a change reads as one line in a diff; the formatter leaves them as written.
# fmt: off

__all__ = [
    "ANTONYMS", "CONCEPTS", "CONDITIONS", "CURRENCY_PREFIX", "HEDGES", "MONTHS", "MULTIPLIERS",
    "NEGATIONS", "NUMBER_WORDS", "PHRASES", "QUALIFIERS", "RELATIONS", "SPLITTERS",
    "STALE", "STOPWORDS", "TENS", "UNITS", "WEEKDAYS",
]

UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "dozen": 12, "once": 1, "twice": 2, "thrice": 3,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
NUMBER_WORDS = {**UNITS_WORDS, **TENS}
MULTIPLIERS = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9,
               "trillion": 1e12, "bn": 1e9, "mn": 1e6}

# unit word -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1.0), "percent": ("percent", 1.0), "pct": ("percent", 1.0),
    "percentage": ("percent", 1.0),
    "second": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0),
    "minute": ("time", 60.0), "min": ("time", 60.0), "mins": ("time", 60.0),
    "hour": ("time", 3600.0), "hr": ("time", 3600.0), "hrs": ("time", 3600.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0), "wk": ("time", 604800.0),
    "fortnight": ("time", 1209600.0),
    "month": ("month", 1.0), "year": ("month", 12.0), "yr": ("month", 12.0),
    "yrs": ("month", 12.0), "decade": ("month", 120.0),
    "mm": ("length", 0.001), "millimetre": ("length", 0.001), "millimeter": ("length", 0.001),
    "cm": ("length", 0.01), "centimetre": ("length", 0.01), "centimeter": ("length", 0.01),
    "m": ("length", 1.0), "metre": ("length", 1.0), "meter": ("length", 1.0),
    "km": ("length", 1000.0), "kilometre": ("length", 1000.0), "kilometer": ("length", 1000.0),
    "mile": ("length", 1609.344), "mi": ("length", 1609.344), "ft": ("length", 0.3048),
    "foot": ("length", 0.3048), "feet": ("length", 0.3048), "inch": ("length", 0.0254),
    "yard": ("length", 0.9144), "yd": ("length", 0.9144),
    "mcg": ("mass", 1e-6), "µg": ("mass", 1e-6), "microgram": ("mass", 1e-6),
    "mg": ("mass", 0.001), "milligram": ("mass", 0.001),
    "g": ("mass", 1.0), "gram": ("mass", 1.0), "gramme": ("mass", 1.0),
    "kg": ("mass", 1000.0), "kilogram": ("mass", 1000.0), "kilo": ("mass", 1000.0),
    "tonne": ("mass", 1e6),
    "ml": ("volume", 0.001), "millilitre": ("volume", 0.001), "milliliter": ("volume", 0.001),
    "l": ("volume", 1.0), "litre": ("volume", 1.0), "liter": ("volume", 1.0),
    "kb": ("data", 1e3), "mb": ("data", 1e6), "gb": ("data", 1e9), "tb": ("data", 1e12),
    "usd": ("usd", 1.0), "dollar": ("usd", 1.0), "cent": ("usd", 0.01),
    "eur": ("eur", 1.0), "euro": ("eur", 1.0),
    "gbp": ("gbp", 1.0), "sterling": ("gbp", 1.0),
    "jpy": ("jpy", 1.0), "yen": ("jpy", 1.0),
    "chf": ("chf", 1.0), "franc": ("chf", 1.0),
    "time": ("times", 1.0),
}
CURRENCY_PREFIX = {"$": "usd", "us$": "usd", "usd": "usd", "€": "eur", "eur": "eur",
                   "£": "gbp", "gbp": "gbp", "¥": "jpy", "jpy": "jpy", "chf": "chf"}
# after a currency amount "m" and "k" are multipliers, not metres
MONEY_MULTIPLIERS = {"k": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "b": 1e9,
                     "billion": 1e9, "thousand": 1e3}

MONTHS = frozenset("january february march april may_month june july august september october "
                   "november december jan feb mar apr jun jul aug sep sept oct nov dec".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# "may" is a hedge far more often than the month; a month needs a day or year next to it.
AMBIGUOUS_MONTHS = frozenset({"may", "mar", "jan", "jun", "dec", "sep", "oct", "aug", "nov"})

# Words mapped onto one concept: found for each other. Each group has a test.
_GROUPS: dict[str, tuple[str, ...]] = {
    "LT": ("below", "under", "beneath"),
    "GT": ("above", "over", "exceed", "beyond"),
    "UP": ("increase", "rise", "grow", "climb", "gain", "jump", "surge", "soar", "raise",
           "boost", "expand"),
    "DOWN": ("decrease", "fall", "decline", "drop", "reduce", "shrink", "lower", "cut",
             "slump", "plunge", "dip", "contract", "lessen"),
    "BUY": ("acquire", "buy", "purchase"),
    "SELL": ("sell", "divest"),
    "BEFORE": ("before", "prior", "earlier"),
    "AFTER": ("after", "following", "later", "subsequent"),
    "GET": ("get", "receive", "obtain"),
    "ALLOW": ("allow", "permit", "let"),
    "FORBID": ("prohibit", "forbid", "ban", "bar"),
    "START": ("start", "begin", "commence"),
    "END": ("end", "finish", "conclude", "expire"),
    "USE": ("use", "usage"),
    "COST": ("cost", "price", "charge", "fee"),
    "CUSTOMER": ("customer", "client"),
    "DOCTOR": ("doctor", "physician", "clinician"),
    "DRUG": ("medication", "medicine", "drug"),
    "DOSE": ("dose", "dosage"),
    "LARGE": ("large", "big"),
    "SMALL": ("small", "little"),
    "FAST": ("fast", "quick", "rapid"),
    "SLOW": ("slow",),
    "SHOW": ("show", "display"),
    "REQUIRE": ("require", "need", "mandatory", "compulsory", "obligatory"),
    "OPTIONAL": ("optional",),
    "INCLUDE": ("include", "contain", "cover"),
    "EXCLUDE": ("exclude",),
    "CANCEL": ("cancel", "terminate"),
    "HIGH": ("high",),
    "LOW": ("low",),
    "MORE": ("more", "greater"),
    "LESS": ("less", "fewer"),
    "MAXIMUM": ("maximum", "max"),
    "MINIMUM": ("minimum",),
    "AVAILABLE": ("available",),
    "UNAVAILABLE": ("unavailable",),
    "ELIGIBLE": ("eligible",),
    "INELIGIBLE": ("ineligible",),
    "FIRST": ("first", "earliest"),
    "LAST": ("last", "latest", "final"),
    "OLD": ("old", "older"),
    "NEW": ("new", "newer"),
    "PROFIT": ("profit", "surplus"),
    "LOSS": ("loss", "deficit"),
    "WIN": ("win",),
    "LOSE": ("lose",),
    "APPROVE": ("approve", "accept", "grant"),
    "REJECT": ("reject", "deny", "refuse"),
    "OPEN": ("open",),
    "CLOSED": ("closed", "shut"),
    "ENABLE": ("enable", "activate"),
    "DISABLE": ("disable", "deactivate"),
    "NORTH": ("north", "northern"),
    "SOUTH": ("south", "southern"),
    "EAST": ("east", "eastern"),
    "WEST": ("west", "western"),
    "IMPROVE": ("improve",),
    "WORSEN": ("worsen", "deteriorate"),
    "SAFE": ("safe",),
    "UNSAFE": ("unsafe", "dangerous"),
    "VALID": ("valid",),
    "INVALID": ("invalid", "void"),
    "PERMANENT": ("permanent",),
    "TEMPORARY": ("temporary",),
    "PUBLIC": ("public",),
    "PRIVATE": ("private",),
    "LEGAL": ("legal", "lawful"),
    "ILLEGAL": ("illegal", "unlawful"),
    "REFUNDABLE": ("refundable",),
    "NONREFUNDABLE": ("nonrefundable",),
    "MONTH_UNIT": ("monthly",),
    "YEAR_UNIT": ("annual", "annually", "yearly"),
    "DAY_UNIT": ("daily",),
    "WEEK_UNIT": ("weekly",),
    "HOUR_UNIT": ("hourly",),
    "FREE": ("free", "complimentary"),
    "WITHIN": ("within",),
    "LENGTH": ("long", "length"),
    "WEIGHT": ("weigh", "weight"),
    "HEIGHT": ("tall", "height"),
    "WIDTH": ("wide", "width"),
    "APPROX": ("approximately", "about", "around", "roughly", "nearly", "almost", "circa",
               "estimated"),
}
CONCEPTS: dict[str, str] = {w: c for c, words in _GROUPS.items() for w in words}
# per-month and per-year words match the unit nouns
CONCEPTS.update({"month": "MONTH_UNIT", "year": "YEAR_UNIT", "day": "DAY_UNIT",
                 "week": "WEEK_UNIT", "hour": "HOUR_UNIT"})

# multi-word equivalences, as lemma sequences (longest first at each start lemma)
_PHRASES: dict[tuple[str, ...], str] = {
    ("less", "than"): "LT", ("few", "than"): "LT", ("fewer", "than"): "LT",
    ("low", "than"): "LT", ("lower", "than"): "LT",
    ("more", "than"): "GT", ("great", "than"): "GT", ("greater", "than"): "GT",
    ("high", "than"): "GT", ("higher", "than"): "GT", ("in", "excess", "of"): "GT",
    ("at", "least"): "GE", ("no", "less", "than"): "GE", ("no", "fewer", "than"): "GE",
    ("not", "less", "than"): "GE", ("a", "minimum", "of"): "GE", ("or", "more"): "GE",
    ("at", "most"): "LE", ("up", "to"): "LE", ("no", "more", "than"): "LE",
    ("not", "more", "than"): "LE", ("a", "maximum", "of"): "LE", ("not", "exceed"): "LE",
    ("or", "less"): "LE", ("or", "fewer"): "LE",
    ("prior", "to"): "BEFORE",
    ("go", "up"): "UP", ("go", "down"): "DOWN",
    ("free", "of", "charge"): "FREE", ("at", "no", "cost"): "FREE",
    ("at", "no", "charge"): "FREE", ("no", "charge"): "FREE", ("no", "cost"): "FREE",
    ("may", "request", "a", "refund"): "refund AVAILABLE",
    ("can", "request", "a", "refund"): "refund AVAILABLE",
    ("be", "eligible", "for", "a", "refund"): "refund AVAILABLE",
    ("be", "entitle", "to", "a", "refund"): "refund AVAILABLE",
    ("non", "refundable"): "NONREFUNDABLE", ("not", "refundable"): "NONREFUNDABLE",
    ("no", "longer"): "STALE_NEG",
    # negation cues that negate nothing the claim could state, or negate in other words
    ("not", "only"): "also", ("whether", "or", "not"): "whether", ("or", "not"): "or",
    ("with", "or", "without"): "with", ("no", "surprise"): "NO_SURPRISE",
    ("no", "doubt"): "NO_DOUBT", ("no", "wonder"): "NO_WONDER",
    ("conclude", "that"): "INFER", ("fail", "to"): "not",
    ("per", "month"): "MONTH_UNIT", ("a", "month"): "MONTH_UNIT", ("each", "month"): "MONTH_UNIT",
    ("every", "month"): "MONTH_UNIT", ("per", "year"): "YEAR_UNIT", ("a", "year"): "YEAR_UNIT",
    ("each", "year"): "YEAR_UNIT", ("every", "year"): "YEAR_UNIT", ("per", "day"): "DAY_UNIT",
    ("a", "day"): "DAY_UNIT", ("each", "day"): "DAY_UNIT", ("every", "day"): "DAY_UNIT",
    ("per", "week"): "WEEK_UNIT", ("a", "week"): "WEEK_UNIT", ("per", "hour"): "HOUR_UNIT",
    ("an", "hour"): "HOUR_UNIT", ("per", "cent"): "%",
}
PHRASES: dict[tuple[str, ...], tuple[str, ...]] = {
    k: tuple(v.split()) for k, v in _PHRASES.items()
}

# concept -> its opposites: one found where the other was claimed is a conflict
_OPPOSITES = [
    ("LT", "GT"), ("GE", "LT"), ("LE", "GT"), ("GE", "LE"), ("UP", "DOWN"), ("BUY", "SELL"),
    ("BEFORE", "AFTER"), ("ALLOW", "FORBID"), ("START", "END"), ("REQUIRE", "OPTIONAL"),
    ("INCLUDE", "EXCLUDE"), ("HIGH", "LOW"), ("MORE", "LESS"), ("MAXIMUM", "MINIMUM"),
    ("AVAILABLE", "UNAVAILABLE"), ("ELIGIBLE", "INELIGIBLE"), ("FIRST", "LAST"),
    ("OLD", "NEW"), ("PROFIT", "LOSS"), ("WIN", "LOSE"), ("APPROVE", "REJECT"),
    ("OPEN", "CLOSED"), ("ENABLE", "DISABLE"), ("NORTH", "SOUTH"), ("EAST", "WEST"),
    ("IMPROVE", "WORSEN"), ("SAFE", "UNSAFE"), ("VALID", "INVALID"),
    ("PERMANENT", "TEMPORARY"), ("PUBLIC", "PRIVATE"), ("LEGAL", "ILLEGAL"),
    ("REFUNDABLE", "NONREFUNDABLE"), ("LARGE", "SMALL"),
    ("FAST", "SLOW"), ("IMPROVE", "DOWN"), ("MONTH_UNIT", "YEAR_UNIT"),
    ("MONTH_UNIT", "WEEK_UNIT"), ("DAY_UNIT", "WEEK_UNIT"), ("DAY_UNIT", "MONTH_UNIT"),
    ("YEAR_UNIT", "DAY_UNIT"), ("HOUR_UNIT", "DAY_UNIT"), ("HIGH", "DOWN"), ("LOW", "UP"),
]
ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _OPPOSITES:
    ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
    ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}
del _a, _b

# relation words whose two sides are roles: "A acquired B" is not "B acquired A"
RELATIONS = frozenset({
    "BUY", "SELL", "beat", "defeat", "overtake", "replace", "succeed", "precede", "follow",
    "sue", "pay", "owe", "lend", "hire", "employ", "own", "invade", "attack", "annex",
    "outperform", "outsell", "surpass", "supersede", "report", "manage", "fund", "license",
    "supply", "found", "conquer", "capture", "indemnify", "outrank", "inherit", "compensate",
    "reimburse", "notify", "train", "APPROVE", "appoint", "acquire", "BEFORE", "AFTER",
    "GT", "LT", "MORE", "LESS", "LARGE", "SMALL", "HIGH", "LOW", "FAST", "SLOW",
})

NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot except excluding "
    "non lack lacks".split()
)
HEDGES = frozenset(
    "may might could possibly potentially perhaps likely unlikely probably suggest "
    "appear seem sometimes reportedly occasionally often usually typically generally "
    "some".split()
)
# markers of a superseded policy or a past state
STALE = frozenset("previously formerly former until legacy superseded deprecate "
                  "discontinue retire withdraw obsolete STALE STALE_NEG originally".split())
# qualifiers that, attached to a number in the cited text, must be in the claim too
QUALIFIERS = frozenset({"LT", "GT", "GE", "LE", "WITHIN", "AFTER", "BEFORE", "APPROX"})

# words that make the rest of a sentence a condition of what it states
CONDITIONS = frozenset({"if", "unless", "only", "provided", "providing"})

SPLITTERS = frozenset({"when", "if", "while", "whereas", "although", "provided", "and",
                       "but"})

STOPWORDS = frozenset(
    "a an the and or but of to in on at by for from with into onto as is are was "
    "were be been being am do does did have has had having will shall would should can "
    "must this that these those it its it's they them their there here which who whom "
    "whose what where how than then so such also just both each per "
    "via upon our your you we i he she his her him us my me if when while whereas "
    "although provided whether very st nd rd th s i.e e.g etc APPROX ANSWER TITLE_WORD".split()
)
