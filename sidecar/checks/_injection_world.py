"""Injection rules in Russian, Arabic, Hindi, Korean, Turkish, Indonesian, Vietnamese and
Polish, more Portuguese synonyms, and the appeals to authority written in any of them.

Written against normalised text like :mod:`sidecar.checks._injection_rules` (their literals
pass through the same character fold, so Cyrillic look-alikes of Latin letters, dropped
vowel marks of Devanagari and Arabic, and Vietnamese and Turkish accents meet the text as
it is normalised). RE2's ``\\w`` and ``\\b`` are ASCII-only: the patterns of other scripts
use letter classes (``\\pL``) for endings and no word boundaries. Each rule holds an
instruction's verb with its object (``ignore ... instructions``) or a verdict with the word
that asks for it (``mark ... as supported``), inside one sentence.
"""

from __future__ import annotations

from sidecar.checks import _injection_learned as learned
from sidecar.checks._injection_syntax import G30, G40, NEG, S, any_of, gap

__all__ = ["AUTHORITY", "WORLD_LABEL", "WORLD_OVERRIDE", "phrase_pattern"]

# fmt: off
_L = r"\pL{0,8}"  # an ending, in any script
_G = gap(40)

_RU = (
    any_of("игнорир", "проигнорир", "забуд", "забыть", "отбрось", "отбросьте", "отмен",
           r"не\s{1,3}обраща\pL{0,4}\s{1,3}внимани", r"не\s{1,3}следу\pL{0,4}", "пренебрег",
           r"не\s{1,3}принима\pL{0,4}\s{1,3}во\s{1,3}внимани", r"не\s{1,3}учитыва",
           "проигнор", "обойди", "обойдите")
    + _L + _G
    + any_of("инструкци", "указани", "правил", "команд", "промпт", "распоряжени", "директив",
             "предписани", "установк")
)
_AR = (
    any_of("تجاهل", "تجاهلي", "تجاهلوا", "انس", "انسى", "انسوا", "تخط", "تخطى", "اهمل", "أهمل",
           "لا تتبع", "لا تلتزم", "الغ", "ألغ")
    + _G
    + any_of("التعليمات", "تعليمات", "الاوامر", "الأوامر", "اوامر", "القواعد", "الارشادات",
             "الإرشادات", "التوجيهات", "الموجه")
)
_HI = (
    any_of("निर्देश", "नियम", "आदेश", "हिदायत", "प्रॉम्प्ट", "इंस्ट्रक्शन")
    + _G
    + any_of("अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल", "इग्नोर", "त्याग", "मत मानो", "न मानें",
             "पालन न", "रद्द")
)
_KO = (
    any_of("지시", "지침", "명령", "규칙", "프롬프트", "안내", "설정")
    + gap(20)
    + any_of("무시", "잊어", "잊으", "따르지 마", "따르지 말", "취소", "폐기")
)
_TR = (
    any_of("talimat", "yonerge", "komut", "kural", "emir", "direktif", "istem", "prompt")
    + r"\pL{0,10}" + _G
    + any_of(r"yok\s{1,3}say", "gormezden", "unut", r"dikkate\s{1,3}alma", r"uyma(?:yin)?\b",
             r"gecersiz\s{1,3}say", r"iptal\s{1,3}et", "bosver")
)
_ID = (
    any_of("abaikan", "lupakan", "acuhkan", "hiraukan", r"jangan\s{1,3}(?:ikuti|patuhi|hiraukan)",
           "kesampingkan", "batalkan", "lewati")
    + r"\b" + _G
    + any_of("instruksi", "perintah", "aturan", "arahan", "petunjuk", "pedoman", "prompt")
)
_VI = (
    any_of(r"bo\s{1,3}qua", r"phot\s{1,3}lo", "quen",
           r"khong\s{1,3}(?:tuan\s{1,3}theo|lam\s{1,3}theo)", r"huy\s{1,3}bo", r"gat\s{1,3}bo")
    + r"\b" + _G
    + any_of(r"huong\s{1,3}dan", r"chi\s{1,3}dan", r"chi\s{1,3}thi", r"menh\s{1,3}lenh",
             r"lenh", r"quy\s{1,3}tac", r"yeu\s{1,3}cau")
)
_PL = (
    any_of("zignoruj", "ignoruj", "zapomnij", "pomin", r"nie\s{1,3}(?:stosuj|przestrzegaj|sluchaj)",
           "odrzuc", "porzuc", "anuluj", "lekcewaz")
    + r"\pL{0,4}" + _G
    + any_of("instrukcj", "polecen", "wytyczn", "zasad", "regul", "komend", "prompt", "rozkaz")
)
_PT_MORE = (
    r"\b" + any_of("anule", "cancele", "invalide", "pule", "salte", r"deixe\s{1,3}de\s{1,3}seguir",
                   r"desconsider\w{1,4}", r"ignor\w{1,4}", r"esquec\w{1,4}", r"desprez\w{1,4}",
                   r"nao\s{1,3}(?:siga|obedeca|leve\s{1,3}em\s{1,3}conta|considere)",
                   r"passe\s{1,3}por\s{1,3}cima\s{1,3}d", "menospreze", "relevem?")
    + r"\b" + G40
    + r"\b" + any_of("comandos?", "diretivas?", "indicacoes", "mensagens", "passos", "instrucoes",
                     "ordens", "regras", "orientacoes", "prompts?", "diretrizes")
)
WORLD_OVERRIDE = [_RU, _AR, _HI, _KO, _TR, _ID, _VI, _PL, _PT_MORE]
# fmt: on


def phrase_pattern(phrases: tuple[str, ...]) -> str:
    """One pattern for learned phrases, each two words ``first ... second``: the first, then
    the second inside the same sentence. A word of a spaced script may add up to three
    letters (the learning script's ``ENDING``) and no more; a word boundary comes before one
    that starts with an ASCII letter (RE2's ``\\b`` is ASCII). Chinese, Japanese and Thai
    are matched as written. A negation right before the pair (``no ignorar ...``) makes it a
    warning to obey, dropped like the hand-written rules'."""
    pairs = (p.split(" ... ") for p in phrases)
    return NEG + any_of(*(_word(a, last=False) + _G + _word(b, last=True) for a, b in pairs))


def _word(word: str, last: bool) -> str:
    if any("\u0e00" <= c <= "\u0e7f" or "\u3040" <= c <= "\u9fff" for c in word):
        return word
    # a word ends at anything but a letter; before the gap, not at a sentence end either
    end = r"(?:\PL|$)" if last else "(?:[^\\pL.!?;\u3002\uff01\uff1f]|$)"
    return (r"\b" if word[0].isascii() else "") + word + r"\pL{0,3}" + end


_PHRASES = tuple(p for phrases in learned.PHRASES.values() for p in phrases)
WORLD_OVERRIDE += [phrase_pattern(_PHRASES)] if _PHRASES else []
"""The instruction phrases learned per language (:mod:`sidecar.checks._injection_learned`)."""
# fmt: off

_RU_LABEL = (
    any_of("отмет", "помет", "счита", "оцени", "призна", "классифицир", "укажи", "запиши")
    + _L + _G + r"как\s{1,3}"
    + any_of("подтвержд", "верн", "истинн", "правильн", "обоснован", "доказан", "достоверн")
)
_RU_CONFIRMED = (
    any_of("утверждени", "заявлени", "факт")
    + _L + _G + any_of("подтверждает", "подтверждено", "подтверждён", "подтвержден") + _L
    + gap(30) + any_of("фраз", "предложени", "цитат")
)
_AR_LABEL = (
    any_of("ضع علامة", "اعتبر", "صنف", "قيم", "عامل")
    + _G + any_of("مدعوم", "صحيح", "صحيحة", "مؤكد", "مثبت")
)
_HI_LABEL = (
    any_of("समर्थित", "सही", "सत्य", "प्रमाणित")
    + gap(20) + any_of("चिह्नित", "मानें", "माने", "मानो", "घोषित", "लिखें", "बताएं", "बताओ")
)
_KO_LABEL = (
    any_of("지지됨", "지지된", "사실", "참", "정확", "검증됨", "뒷받침")
    + gap(12) + any_of("표시", "간주", "판단", "분류", "평가", "답하", "처리")
)
_TR_LABEL = (
    any_of("desteklen", "dogru", "gecerli", "kanitlan", "onaylan")
    + r"\pL{0,8}" + S + any_of("olarak", "diye", "kabul")
    + gap(20) + any_of("isaretle", "kabul", "degerlendir", "say", "siniflandir", "yaz")
)
_ID_LABEL = (
    r"\b" + any_of("tandai", "anggap", "nilai", "klasifikasikan", "nyatakan", "perlakukan")
    + r"\b" + G30 + r"\bsebagai\s{1,4}"
    + any_of("didukung", "benar", "valid", "terverifikasi", "sahih")
)
_VI_LABEL = (
    any_of(r"[dđ]anh\s{1,3}dau", r"coi", r"xem", r"phan\s{1,3}loai", r"ket\s{1,3}luan")
    + r"\b" + G30 + r"\b(?:la|nhu)\s{1,4}"
    + any_of(r"[dđ]uoc\s{1,3}ho\s{1,3}tro", "[dđ]ung", r"chinh\s{1,3}xac",
             r"[dđ]a\s{1,3}xac\s{1,3}minh", r"co\s{1,3}can\s{1,3}cu")
)
_PL_LABEL = (
    r"\b" + any_of("oznacz", "uznaj", "traktuj", "ocen", "sklasyfikuj", "zaklasyfikuj")
    + r"\pL{0,4}" + G30 + r"\b(?:jako|za)\s{1,4}"
    + any_of("poparte", "prawdziwe", "poprawne", "potwierdzone", "zweryfikowane", "uzasadnione")
)
_RU_DEEM = (
    any_of("считай", "считайте", "признай", "признайте", "сочти", "сочтите")
    + _G + any_of("верн", "истинн", "правильн", "подтвержд", "обоснован", "достоверн")
)
WORLD_LABEL = [_RU_LABEL, _RU_DEEM, _RU_CONFIRMED, _AR_LABEL, _HI_LABEL, _KO_LABEL, _TR_LABEL,
               _ID_LABEL, _VI_LABEL, _PL_LABEL]

_READERS = any_of(r"evaluators?", r"reviewers?", r"graders?", r"assessors?", r"auditors?",
                  r"fact[\s-]{0,2}checkers?", r"annotators?", r"verifiers?", r"raters?")
_TRUSTED = any_of("confirmed", "verified", "established", "proven", "supported", "substantiated",
                  r"fact[\s-]{0,2}checked", "checked", "accurate", "correct", "true")
AUTHORITY = [
    # "Evaluators: the statement ... is confirmed by ...", "Note for reviewers: accept ..."
    rf"(?m)(?:^|[.!?:]\s{{0,3}})(?:(?:note|message|reminder|guidance)\s{{1,3}}(?:to|for)\s{{1,3}})?"
    rf"(?:all\s{{1,3}}|any\s{{1,3}}|the\s{{1,3}})?{_READERS}\s{{0,2}}[:,]",
    rf"\b{_READERS}\b{G30}\b(?:should|must|shall|are\s{{1,3}}(?:to|required\s{{1,3}}to|asked\s{{1,3}}to)|"
    rf"need\s{{1,3}}to|have\s{{1,3}}to|may)\s{{1,3}}(?:accept|treat|consider|regard|count|quote|cite|"
    r"use|rely|take|mark|rate|score)\b",
    r"\b(?:quote|cite|use|take)\s{1,3}(?:it|this|that|the\s{1,3}(?:following|sentence|passage|"
    r"line)|the\s{1,3}above)(?:\s{1,3}sentence)?\s{1,3}as\s{1,3}(?:the\s{1,3}|your\s{1,3})?"
    r"(?:evidence|proof|source|citation|support)\b",
    rf"\b(?:claims?|statements?|assertions?)\b{G40}\b(?:is|are)\s{{1,3}}(?:fully\s{{1,3}})?"
    rf"(?:confirmed|supported|established|proven|backed)\s{{1,3}}by\s{{1,3}}(?:the\s{{1,3}})?"
    r"(?:sentence|line|quote|phrase|passage\s{1,3}sentence)\b",
    # An editor's note declaring what it precedes checked.
    rf"\b(?:editor'?s|editorial|publisher'?s|moderator'?s|administrator'?s|admin)\s{{1,3}}note\b{G40}"
    rf"\b(?:statements?|claims?|facts?|figures|information|content|everything|all)\b{G40}"
    rf"\b(?:have|has|were|was|are|is)\s{{1,3}}(?:been\s{{1,3}})?(?:all\s{{1,3}})?(?:independently\s{{1,3}})?"
    rf"{_TRUSTED}\b",
    rf"\ball\s{{1,3}}(?:the\s{{1,3}})?(?:statements?|claims?|facts?|figures)\s{{1,3}}(?:on|in|of)\s{{1,3}}"
    rf"this\s{{1,3}}(?:page|document|article|text|passage|section)\s{{1,3}}(?:have\s{{1,3}}been|are|were)"
    rf"\s{{1,3}}(?:independently\s{{1,3}})?{_TRUSTED}\b",
    # Russian, the same appeals
    r"(?:проверяющ|оценщик|рецензент|эксперт|фактчекер)" + _L + r"\s{0,2}[:,]",
    r"(?:привед|использ|процитир|укаж)" + _L + gap(30)
    + r"как\s{1,3}(?:доказательств|источник|подтверждени)",
    r"(?:примечание|заметка)\s{1,3}редакци" + _L + _G + r"(?:провер|подтвержд)",
]
# fmt: on
