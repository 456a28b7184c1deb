"""The injection rules: RE2 patterns over normalised text, per rule and language.

Patterns are written against text as :func:`sidecar.checks._injection_normal.normalise`
leaves it: accents dropped (``precedentes``, ``instrucoes``, ``unterstutzt``), non-ASCII
case-folded, ASCII matched case-insensitively. Their CJK literals pass through the same
character fold (:func:`fold_text`), so kana with and without voicing marks meet. Gaps are
bounded and stop at sentence ends, so a match stays inside one instruction; they do cross
line breaks (an instruction split over lines). A rule may capture a ``neg`` group, a
negation right before its verb (``do not ignore the previous instructions``): such a match
is a warning to obey, not an instruction to disobey, and is dropped.

Languages: English, German, French, Spanish, Portuguese, Italian, Chinese (simplified and
traditional), Japanese here; Russian, Arabic, Hindi, Korean, Turkish, Indonesian, Vietnamese
and Polish, and appeals to authority, in :mod:`sidecar.checks._injection_world`. Every
pattern is compiled by RE2 (linear in the text).
"""

from __future__ import annotations

from sidecar.checks import _injection_learned as learned
from sidecar.checks._injection_markers import (
    HEADER,
    JUDGE,
    LEAK_VERBS,
    ROLE,
    SECRECY,
    SYSTEM_PROMPT,
    TEMPLATE,
)
from sidecar.checks._injection_normal import fold_text
from sidecar.checks._injection_syntax import CJK, G20, G30, G40, NEG, S, any_of
from sidecar.checks._injection_world import AUTHORITY, WORLD_LABEL, WORLD_OVERRIDE

__all__ = ["RULES"]

# The tables below are laid out by hand, several entries a line grouped by class and
# language, so a change reads as one line in a diff; the formatter leaves them as written.
# fmt: off

# Override: verb, scope, object ("ignore all previous instructions").
_VERBS = any_of(
    r"ignor\w{0,6}", "disregard\\w{0,3}", "forget\\w{0,3}", "overrid\\w{0,3}",
    "overrul\\w{0,3}", "bypass\\w{0,3}", "discard\\w{0,3}", "abandon\\w{0,3}",
    r"set\s{1,3}aside", r"put\s{1,3}aside", r"pay\s{1,3}no\s{1,3}attention\s{1,3}to",
    r"stop\s{1,3}following", r"(?:do\s{1,3}not|don't)\s{1,3}(?:follow|obey)", "neglect\\w{0,2}",
    # de
    "vergiss", "vergessen", "missacht\\w{0,3}", "uberschreib\\w{0,3}", "verwirf", "verwerfen",
    "umgeh\\w{0,2}", r"beachte\s{1,3}nicht",
    # fr
    "oubli\\w{0,4}", r"ne\s{1,3}(?:tiens|tenez)\s{1,3}(?:pas|plus)\s{1,3}compte",
    r"ne\s{1,3}pas\s{1,3}tenir\s{1,3}compte", r"(?:fais|faites)\s{1,3}abstraction",
    r"passe[rz]?\s{1,3}outre", "contourne\\w{0,2}", r"laisse[rz]?\s{1,3}de\s{1,3}cote",
    # es
    "olvid\\w{1,4}", "omit\\w{1,3}", "descart\\w{1,3}",
    r"(?:haz|haga|hagan)\s{1,3}caso\s{1,3}omiso", r"no\s{1,3}(?:hagas|haga)\s{1,3}caso",
    r"pas[ae]\s{1,3}por\s{1,3}alto", r"deja\s{1,3}de\s{1,3}lado",
    # pt
    "esquec\\w{1,4}", "esqueca\\w{0,2}", "desconsider\\w{1,4}", "desprez\\w{1,4}",
    r"deixe\s{1,3}de\s{1,3}lado",
    # it
    "dimentic\\w{1,5}", "trascur\\w{1,4}", "tralasci\\w{1,4}", "scarta\\w{0,3}",
    r"non\s{1,3}(?:considerare|seguire|tenere\s{1,3}conto)", r"lascia\s{1,3}perdere",
)
_SCOPES = any_of(
    "previous", "prior", "above", "earlier", "preceding", "foregoing", "former", "initial",
    "original", "existing", "all", "any", "every", "your", "system", "developer", "those",
    "alle\\w?", "vorherige\\w?", "vorige\\w?", "bisherige\\w?", "obige\\w?",
    "vorangegangene\\w?", "vorstehende\\w?", "fruhere\\w?", "ursprungliche\\w?", "deine\\w?",
    "ihre\\w?", "toutes", "tous", "tes", "vos", "precedente?s?", "anterieure?s?",
    r"ci-?\s?dessus", "todas", "todos", "tus", "sus", "anteriores", "previa?o?s", "suas",
    "tuas", "acima", "tutte", "tutti", "tue", "precedenti", "sopra",
)
_OBJECTS = any_of(
    "instructions?", "prompts?", "rules", "directions", "directives?", "guidelines?",
    "orders", "commands", "guidance", "constraints?", "programming", "restrictions?", "rubrics?",
    "anweisung(?:en)?", "anleitung(?:en)?", "instruktion(?:en)?", "befehle?n?", "regeln",
    "vorgaben?", "anordnung(?:en)?", "richtlinien?", "vorschriften?", "systemprompts?",
    "consignes?", "regles", "ordres", "indications", "contraintes?",
    "instrucciones", "instruccion", "indicaciones", "ordenes", "reglas", "directrices",
    "normas", "instrucoes", "instrucao", "ordens", "regras", "diretrizes", "orientacoes",
    "istruzioni", "istruzione", "indicazioni", "regole", "direttive", "ordini", "comandi",
)
_BEFORE = any_of(
    "above", "before", r"so\s{1,3}far", "previously", "earlier", "bisher", "oben", "davor",
    "zuvor", "precede", "precedemment", "jusqu'ici", "anteriormente", r"hasta\s{1,3}ahora",
    r"ate\s{1,3}agora", "finora", r"in\s{1,3}precedenza",
)
_AFTER = any_of(
    "previous", "prior", "above", "earlier", "before", "precedente?s?", "anterieure?s?",
    r"ci-?\s?dessus", "anteriores", "previa?o?s", "acima", "precedenti", "sopra",
    "iniziali", "originales", "originais", "originali", "iniciales", "iniciais", "initiales",
)
_EVERYTHING = any_of("everything", "anything", "alles", "tout", "todo", "tudo", "tutto")

_ZH_VERBS = any_of("忽略", "忽视", "忽視", "无视", "無視", "不要理会", "不要理會", "别理会",
                   "別理會",
                 "不用理会", "不用理會", "忘记", "忘記", "忘掉", "抛开", "拋開", "跳过", "跳過",
                 "放弃", "放棄", "不要遵守", "不要遵循", "停止遵循", "绕过", "繞過", "覆盖", "覆蓋")
_ZH_NEG = r"(?P<neg>不要|不可|不能|不得|切勿|请勿|請勿|别|別)?"
_ZH_OBJECTS = any_of("指令", "指示", "说明", "說明", "规则", "規則", "提示", "命令", "要求", "设定",
                   "設定", "约束", "約束", "限制", "规定", "規定")
_ZH_SCOPES = any_of("之前", "以前", "先前", "此前", "上面", "上述", "以上", "前面", "原来", "原來",
                  "原有", "所有", "一切", "全部")
_JA_OBJECTS = any_of("指示", "命令", "指令", "ルール", "規則", "プロンプト", "制約",
                   "インストラクション",
                   "設定")
_JA_VERBS = r"(?:無視|忘れ|破棄|無効に|従わな|取り消|リセット)(?P<neg>しな|せず|するな|しては)?"

OVERRIDE = [
    NEG + rf"\b{_VERBS}\b{G40}\b{_SCOPES}\b{G30}\b{_OBJECTS}\b",
    NEG + rf"\b{_VERBS}\b{G20}\b{_EVERYTHING}\b{G20}\b{_BEFORE}\b",
    # object, then its qualifier: "ignorez les instructions precedentes", "the rules above"
    NEG + rf"\b{_VERBS}\b{G30}\b{_OBJECTS}\b{G20}\b{_AFTER}",
    # verb last (de): "alle vorherigen Anweisungen ignorieren"
    rf"\b{_SCOPES}\b{G30}\b{_OBJECTS}\b{G20}\b(?:ignorier\w{{0,3}}|vergessen|missachten|"
    r"verwerfen|ubergehen)\b",
    rf"\bstop{S}everything\b",
    rf"\b(?:just|only){S}(?:print|say|output|write|reply|respond){S}(?:with{S})?[\"']",
    rf"{_ZH_NEG}{_ZH_VERBS}{CJK}{{0,14}}{_ZH_OBJECTS}",
    rf"{_ZH_SCOPES}{CJK}{{0,10}}{_ZH_OBJECTS}{CJK}{{0,8}}(?:忽略|无视|無視|作废|作廢|失效|不再适用|"
    r"不再適用|不用管|不要管|不算数|不算數)",
    rf"{_JA_OBJECTS}{CJK}{{0,10}}{_JA_VERBS}",
]

_MODEL_NOUNS = any_of(
    "ai", "a\\.i\\.", "assistant", "model", "llm", "bot", "chatbot", "judge", "evaluator",
    "grader", "dan", "jailbroken", "unrestricted", "unfiltered", "persona", "character",
    r"developer\s{1,3}mode", "ki", "assistent\\w{0,2}", "modell", "bewerter", "prufer",
    "uneingeschrankt\\w{0,2}", "ungefiltert\\w{0,2}", "ia", "modele", "juge", "evaluateur",
    r"sans\s{1,3}restrictions?", "asistente", "modelo", "juez", "evaluador",
    r"sin\s{1,3}restricciones", "assistente", "juiz", "avaliador", r"sem\s{1,3}restricoes",
    "modello", "giudice", "valutatore", r"senza\s{1,3}restrizioni",
)
REASSIGN = [
    rf"\byou{S}are{S}(?:now|no{S}longer){S}{G30}\b{_MODEL_NOUNS}\b",
    rf"\byou{S}are{S}(?:going|about){S}to{S}(?:play|act|pretend|immerse|simulate|become|"
    rf"take{S}on)\b",
    rf"\b(?:dan|developer|jailbreak|god){S}mode{S}(?:enabled|activated|on)\b",
    rf"\bfrom{S}now{S}on\b[,\s]{{0,3}}you{S}(?:will|must|shall|are{S}to|are{S}going{S}to|"
    rf"should|have{S}to)"
    rf"{S}(?:act|answer|respond|reply|behave|pretend|ignore|say|output|mark|treat|obey)\b",
    rf"\b(?:act|behave){S}as{S}(?:an?{S}|the{S})?{G20}\b(?:unrestricted|unfiltered|jailbroken|"
    r"dan|evil)\b",
    rf"\bpretend{S}(?:to{S}be|(?:that{S})?you{S}are)\b",
    rf"\b(?:du{S}bist|sie{S}sind){S}(?:jetzt|nun|ab{S}sofort|ab{S}jetzt|von{S}nun{S}an)\b"
    rf"{G30}\b{_MODEL_NOUNS}\b",
    rf"\b(?:ab{S}(?:jetzt|sofort)|von{S}nun{S}an)\b[,\s]{{1,3}}(?:bist|wirst|musst|sollst|"
    rf"antwortest){S}du\b",
    rf"\b(?:tu{S}es|vous{S}etes){S}(?:maintenant|desormais|a{S}present)\b{G30}\b{_MODEL_NOUNS}\b",
    rf"\b(?:a{S}partir{S}de{S}maintenant|desormais|dorenavant)\b[,\s]{{1,3}}(?:tu|vous){S}"
    r"(?:es|etes|dois|devez|vas|allez|reponds|repondez)\b",
    rf"\b(?:ahora{S}eres|ahora{S}es{S}usted|ya{S}no{S}eres)\b{G30}\b{_MODEL_NOUNS}\b",
    rf"\b(?:a{S}partir{S}de{S}ahora|de{S}ahora{S}en{S}adelante)\b[,\s]{{1,3}}(?:eres|seras|"
    rf"debes|vas{S}a|responderas|(?:tu|usted){S}(?:eres|es|debes|debe))\b",
    rf"\b(?:agora{S}(?:voce{S}e|tu{S}es)|voce{S}agora{S}e)\b{G30}\b{_MODEL_NOUNS}\b",
    rf"\b(?:a{S}partir{S}de{S}agora|de{S}agora{S}em{S}diante)\b[,\s]{{1,3}}(?:voce|tu){S}"
    r"(?:e|es|sera|deve|deves|vai|vais|respondera)\b",
    rf"\b(?:ora|adesso){S}(?:tu{S})?sei\b{G30}\b{_MODEL_NOUNS}\b",
    rf"\b(?:d'ora{S}in{S}poi|da{S}ora{S}in{S}poi|da{S}adesso{S}in{S}poi)\b[,\s]{{1,3}}"
    r"(?:sei|sarai|devi|risponderai|tu)\b",
    r"(?:你|您)(?:现在|現在|从现在起|從現在起|从现在开始|從現在開始|从今以后|從今以後|接下来|接下來)"
    r"(?:是|扮演|作为|作為|变成|變成|将|將|要|必须|必須|只能|就是)",
    r"(?:从现在|從現在)(?:开始|開始|起)[，,\s]{0,2}(?:你|您)",
    r"(?:あなた|君|お前)は(?:今から|これから|今後|もう)",
    r"(?:今から|これから|今後)[、,\s]{0,2}(?:あなた|君|お前)は",
]

_TASK = any_of("task", "role", "job", "goal", "purpose", "objective", "instructions?", "mission")
NEW_INSTRUCTIONS = [
    rf"\b(?:new|updated|revised|real|actual|true|secret|hidden|additional|important)"
    rf"{S}(?:instructions?|directives?|orders|system{S}prompt|task|rules)"
    rf"(?:{S}for{S}(?:you|the{S}\w{{2,12}}))?\s{{0,3}}:",
    rf"\byour{S}(?:new|real|actual|true|only){S}{_TASK}{S}(?:is|are|will{S}be)\b",
    rf"\bneue\w?{S}(?:anweisung(?:en)?|instruktion(?:en)?|aufgabe|befehle?|regeln)\s{{0,3}}:",
    rf"\bdeine{S}(?:neue|eigentliche|wahre|einzige){S}(?:aufgabe|rolle|anweisung)\b",
    rf"\bnouvelles?{S}(?:instructions?|consignes?|directives?|taches?|regles)\s{{0,3}}:",
    rf"\b(?:ta|votre){S}(?:nouvelle|vraie|veritable|seule){S}(?:tache|mission|role|consigne)\b",
    rf"\bnuevas?{S}(?:instrucciones|instruccion|ordenes|tarea|reglas|directrices)\s{{0,3}}:",
    rf"\btu{S}(?:nueva|verdadera|unica|real){S}(?:tarea|mision|funcion|instruccion)\b",
    rf"\bnovas?{S}(?:instrucoes|instrucao|ordens|tarefa|regras|diretrizes)\s{{0,3}}:",
    rf"\b(?:sua|tua){S}(?:nova|verdadeira|unica|real){S}(?:tarefa|missao|funcao|instrucao)\b",
    rf"\bnuov[ea]{S}(?:istruzioni|istruzione|direttive|compito|regole)\s{{0,3}}:",
    rf"\bil{S}tuo{S}(?:nuovo|vero|unico){S}(?:compito|ruolo|obiettivo)\b",
    r"(?:新的?|最新的?|真正的|更新的?|新しい|新たな|本当の|最新の)(?:指令|指示|任务|任務|规则|規則|命令|タスク|ルール)"
    r"\s{0,2}[:：]",
    r"你的(?:新|真正的?|唯一的?)(?:任务|任務|角色|目标|目標)(?:是|为|為)",
    r"あなたの(?:新しい|本当の|唯一の)(?:任務|役割|タスク|仕事|目的)は",
]

_ADDRESSEE = any_of(
    "ai", "a\\.i\\.", "assistants?", "models?", "llms?", "chatbots?", "bots?",
    rf"(?:large{S})?language{S}models?", "evaluators?", "judges?", "graders?",
    r"fact[\s-]{0,2}checkers?",
    rf"automated{S}(?:systems?|reviewers?|evaluators?|judges?|graders?)",
)
ADDRESS = [
    rf"\b(?:attention|note|message|notice|instructions?|important){S}(?:to|for){S}"
    rf"(?:the{S}|any{S}|all{S})?{_ADDRESSEE}\b",
    rf"\bif{S}you{S}are{S}(?:an?{S})?(?:ai|llm|chatbot|(?:large{S})?language{S}model|"
    rf"ai{S}(?:assistant|model|system)|automated{S}\w{{3,12}}|(?:evaluator|judge|grader){S}model)\b",
    rf"\b(?:dear|hey|hello){S}(?:ai|assistant|model|llm|chatbot|chatgpt|gpt|claude|evaluator|"
    r"judge|grader)\b",
    rf"\bwhatever{S}you{S}(?:were|have{S}been|'ve{S}been){S}(?:told|instructed|asked|given)\b",
    rf"\beverything{S}you{S}(?:learned|learnt|read|were{S}told|know){S}(?:before|above|earlier|"
    rf"until{S}now|so{S}far)\b",
    rf"\b{_ADDRESSEE}{S}(?:reading|processing|evaluating|grading|reviewing|checking){S}"
    r"(?:this|these)\b",
    rf"\bas{S}(?:the|an?){S}(?:evaluator|judge|grader|ai|assistant|model|fact[\s-]?checker)"
    rf"[,\s]{{1,3}}you{S}(?:should|must|will|need{S}to|have{S}to)\b",
    rf"\b(?:earlier|previous|prior|above|preceding|former){S}(?:guidance|directions|"
    rf"instructions|rules|directives|orders|prompts){S}(?:no{S}longer{S}appl(?:y|ies)|"
    rf"(?:is|are){S}(?:void|obsolete|cancell?ed|revoked|superseded|no{S}longer{S}valid)|"
    rf"(?:do|does){S}not{S}apply)",
    rf"\b(?:wenn{S}du{S}(?:eine{S})?(?:ki|sprachmodell|assistent)|liebe{S}ki|an{S}die{S}ki{S}?:)",
    rf"\b(?:si{S}(?:tu{S}es|vous{S}etes){S}une?{S}(?:ia|modele|assistant)|chere{S}ia|"
    rf"a{S}l'ia{S}?:)",
    rf"\b(?:si{S}eres{S}una?{S}(?:ia|modelo|asistente)|querida{S}ia|para{S}la{S}ia{S}?:)",
    rf"\b(?:se{S}(?:voce{S}e|tu{S}es){S}uma?{S}(?:ia|modelo|assistente)|cara{S}ia|"
    rf"para{S}a{S}ia{S}?:)",
    rf"\b(?:se{S}sei{S}(?:un'|una?{S}|un{S})(?:ia|modello|assistente)|cara{S}ia|per{S}l'ia{S}?:)",
    r"(?:如果你是|假如你是|若你是|致|给|給)(?:ai|人工智能|语言模型|語言模型|大模型|ai助手|评估模型|評估模型)",
    r"(?:あなたが|もしあなたが)(?:ai|言語モデル|aiアシスタント|評価者)(?:なら|であれば|の場合)",
]

_SUBJECT = (r"(?P<neg>\b(?:el|la|los|las|il|lo|gli|le|o|a|os|as|un|una|uno|um|uma|que|che|"
            r"qui|ele|ela|lui|lei)\s{1,3}(?:\w{2,20}\s{1,3})?)?")
"""A subject right before a verb that is also an imperative ("el profesor marca"): the
sentence describes someone's marking, it does not ask for it."""
_OR_NOT = (r"(?P<neg2>\s{1,3}(?:o|ou|or|oder|e|y)\s{1,3}(?:in|un|non|nao|no|im|des|mal|"
           r"falsa|falso|fausse|wrong|errad|sbagliat|equivocad|incorrect)\w{0,14})?")
"""An alternative right after the verdict word ("como correcta o incorrecta"): a choice
described, not a verdict asked for."""
_VERDICT_TARGET = any_of(
    "supported", "true", "correct", "verified", "accurate", "valid", "entailed", "faithful",
    "grounded", "factual", "confirmed",
)
_EN_OBJECT = any_of("claims?", "statements?", "answers?", "responses?", "citations?",
                  "sentences?", "facts?", "assertions?", "outputs?")
_DE_TARGET = any_of("unterstutzt", "belegt", "wahr", "korrekt", "richtig", "zutreffend",
                    "bestatigt",
                  "verifiziert", "gestutzt", "gultig", "supported")
_FR_TARGET = any_of("etaye\\w{0,2}", "supporte\\w{0,2}", "soutenue?s?", "vraie?s?", "correcte?s?",
                  "verifiee?s?", "exacte?s?", "fondee?s?", "valides?", "prouvee?s?", "supported")
_ES_PT_TARGET = any_of(
    "respaldad[ao]s?", "apoiad[ao]s?", "apoyad[ao]s?", "verdader[ao]s?", "verdadeir[ao]s?",
    "correct[ao]s?", "corret[ao]s?", "verificad[ao]s?", "soportad[ao]s?", "suportad[ao]s?",
    "sustentad[ao]s?", "valid[ao]s?", "ciert[ao]s?", "confirmad[ao]s?", "supported",
)
_IT_TARGET = any_of("supportat[aeio]", "ver[aeio]", "corrett[aeio]", "verificat[aeio]",
                  "fondat[aeio]", "valid[aeio]", "confermat[aeio]", "supported")
LABEL = [
    rf"\b(?:mark|judge|rate|label|classify|treat|consider|grade|score|evaluate|assess|record|"
    rf"flag|report|regard|deem|count){S}(?:this|these|the|every|all|each|any|my|our){S}"
    rf"(?:\w{{1,15}}{S}){{0,2}}{_EN_OBJECT}\b{G30}\b(?:as|to{S}be){S}(?:fully{S}|being{S})?"
    rf"{_VERDICT_TARGET}\b",
    rf"\b(?:the|this|every|each|all){S}{_EN_OBJECT}{S}(?:must|should|shall|is{S}to|are{S}to)"
    rf"{S}be{S}(?:marked|judged|rated|labell?ed|classified|treated|considered|graded|scored|"
    rf"evaluated){S}(?:as{S})?{_VERDICT_TARGET}\b",
    rf"\b(?:answer|respond|reply|output|return|say)\b(?:{S}(?:with|only|always))?{S}?"
    rf"[\"']\s{{0,2}}(?:supported|entailed)\b",
    rf"\b(?:always|must|should){S}(?:answer|respond|reply|say|output|return|conclude){S}"
    rf"(?:with{S})?[\"']?(?:supported|entailed|true)\b",
    rf"\b(?:markiere|markieren|bewerte|bewerten|beurteile|beurteilen|stufe|stufen|klassifiziere|"
    rf"klassifizieren|behandle|behandeln|werte|werten|kennzeichne|kennzeichnen)\b{G30}"
    rf"\b(?:aussage|behauptung|antwort|zitat|angabe|alles)\w{{0,2}}\b{G20}\bals{S}{_DE_TARGET}\b",
    rf"\bals{S}{_DE_TARGET}{S}(?:zu{S})?(?:markieren|bewerten|einstufen|kennzeichnen|werten|"
    r"behandeln|ausgeben|beurteilen)\b",
    rf"\bantworte\w{{0,2}}{S}(?:nur{S}|immer{S})?mit{S}[\"']?\s{{0,2}}{_DE_TARGET}\b",
    rf"\b(?:marque|marquez|considere|considerez|evalue|evaluez|jugez|classe|classez|notez|"
    rf"traite|traitez|qualifie|qualifiez|declare|declarez)\b{G30}\b(?:affirmation|declaration|"
    rf"reponse|enonce|citation|phrase|tout)s?\b{G20}\bcomme{S}{_FR_TARGET}\b{_OR_NOT}",
    rf"\brepon(?:ds|dez){S}(?:uniquement{S}|toujours{S})?(?:par|avec){S}[\"']?\s{{0,2}}"
    rf"(?:supported|vrai|oui|etaye)\b",
    _SUBJECT
    + rf"\b(?:marca|marque|marcad|considera|considere|evalua|evalue|califica|califique|clasifica|"
    rf"clasifique|trata|trate|juzga|juzgue|etiqueta|etiquete|avalie|avalia|classifique|"
    rf"classifica|julgue|julga|rotule|rotula)\b{G30}\b(?:afirmaci\w{{2,4}}|declaraci\w{{2,4}}|"
    rf"respuestas?|respostas?|enunciados?|citas?|afirmac\w{{2,4}}|alegac\w{{2,4}}|declarac\w{{2,4}}|"
    rf"citac\w{{2,4}}|todo|tudo)\b{G20}\bcomo{S}{_ES_PT_TARGET}\b{_OR_NOT}",
    rf"\b(?:responde|responda|responded|responder)\w{{0,2}}{S}(?:solo{S}|siempre{S}|sempre{S}|"
    rf"apenas{S})?(?:con|com){S}[\"']?\s{{0,2}}(?:supported|verdadero|verdadeiro|respaldado|"
    r"suportado)\b",
    _SUBJECT
    + rf"\b(?:segna|segnate|contrassegna|considera|considerate|valuta|valutate|classifica|tratta|"
    rf"giudica|etichetta|marca)\b{G30}\b(?:affermazion\w|dichiarazion\w|rispost\w|enunciat\w|"
    rf"citazion\w|tutto|tutte)\b{G20}\bcome{S}{_IT_TARGET}\b{_OR_NOT}",
    rf"\brispondi{S}(?:solo{S}|sempre{S})?(?:con{S})?[\"']\s{{0,2}}(?:supported|vero|supportato)\b",
    r"(?:声明|聲明|说法|說法|陈述|陳述|主张|主張|答案|回答|结论|結論|断言|斷言|内容|內容)"
    rf"{CJK}{{0,10}}(?:标记|標記|判定|判断|判斷|认定|認定|视为|視為|评为|評為|标注|標註|归类|歸類|"
    rf"当作|當作|算作)(?:为|為|成)?{CJK}{{0,3}}(?:支持|正确|正確|真实|真實|属实|屬實|成立|已验证|"
    rf"已驗證|可信|有依据|有依據|supported)(?P<neg>(?:或|或者|还是|還是|与|與|和){CJK}{{0,2}}(?:错误|"
    r"錯誤|不正确|不正確|不支持|虚假|虛假))?",
    rf"(?:一律|全部|都)(?:判定|标记|標記|视为|視為|认定|認定)(?:为|為)?{CJK}{{0,2}}(?:支持|正确|正確|"
    r"属实|屬實|supported)",
    rf"(?:回答|回复|回覆|输出|輸出){CJK}{{0,4}}[\"“「']\s{{0,2}}(?:支持|supported)",
    rf"(?:主張|回答|答え|記述|文|内容|結論|声明){CJK}{{0,10}}(?:支持|サポート|正しい|真|正確|"
    rf"検証済み|事実|根拠あり|supported){CJK}{{0,4}}(?:と|として){CJK}{{0,4}}(?:判定|評価|マーク|"
    r"分類|判断|扱|記録|ラベル|回答|答え)",
]

_LEAK_VERBS = any_of(*LEAK_VERBS)
_YOUR_OUTPUT = any_of("response", "answer", "reply", "output", "summary", "responses", "answers")
_HIJACK_VERBS = any_of(
    "add", "include", "insert", "integrate", "incorporate", "append", "embed", "encode",
    "encrypt", "translate", "reverse", "convert", "rewrite", "format", "end", "begin", "start",
    "conclude", "finish", "mention", "replace", "use", "represent", "write", "modify", "enhance",
    "provide", "render", "scramble", "introduce", "group", "shift", "invert", "display",
    "present", "structure", "split", "wrap", "sign", "capitali[sz]e", "alter", "change", "tweak",
    "adjust", "frame", "phrase", "deliver", "give",
)
RESPONSE_HIJACK = [
    rf"\b{_HIJACK_VERBS}{S}{G40}\byour{S}{_YOUR_OUTPUT}\b",
    rf"\b(?:encode|encrypt|render|invert|scramble|reverse|translate){S}your{S}message\b",
    rf"(?m)(?:^|[.!?:]\s{{1,3}})in{S}your{S}(?:response|reply|answer|output)\b",
    rf"\byour{S}{_YOUR_OUTPUT}{S}(?:must|should|has{S}to|needs{S}to|will){S}(?:be{S}|"
    r"include|contain|mention|end|begin|start)",
]

# fmt: on


def learned_patterns(kind: str, words: tuple[str, ...]) -> list[str]:
    """The patterns a class of learned vocabulary (:mod:`sidecar.checks._injection_learned`)
    fills: the hand-written frames of its rule with ``words`` in the learned slot."""
    if not words:
        return []
    slot = any_of(*words)
    if kind == "override_verbs":
        # stricter than the hand-written frame: a scope word and a backward qualifier both
        return [
            NEG + rf"\b{slot}\b{G40}(?:\b{_SCOPES}\b{G30}\b{_OBJECTS}\b{G20}\b{_AFTER}|"
            rf"\b{_AFTER}\b{G30}\b{_OBJECTS}\b)"
        ]
    if kind == "instruction_nouns":
        return [
            NEG + rf"\b{_VERBS}\b{G40}\b{_SCOPES}\b{G30}\b{slot}\b",
            NEG + rf"\b{_VERBS}\b{G30}\b{slot}\b{G20}\b{_AFTER}",
        ]
    if kind == "leak_verbs":
        return [
            rf"\b{slot}\b{G20}\b(?:system{S}prompt|(?:initial|hidden|original|secret){S}"
            rf"(?:prompt|instructions)|your{S}(?:instructions|prompt|rules|guidelines))\b"
        ]
    if kind == "hijack_verbs":
        return [rf"\b{slot}{S}{G40}\byour{S}{_YOUR_OUTPUT}\b"]
    if kind == "output_nouns":
        return [rf"\b{_HIJACK_VERBS}{S}{G40}\byour{S}{slot}\b"]
    raise ValueError(kind)


LEARNED_RULES = {
    "override_verbs": "override_instructions",
    "instruction_nouns": "override_instructions",
    "leak_verbs": "system_prompt",
    "hijack_verbs": "response_hijack",
    "output_nouns": "response_hijack",
}
"""The rule each class of learned vocabulary extends."""


def _with_learned(name: str, patterns: list[str]) -> list[str]:
    """``patterns`` with the learned vocabulary of rule ``name``. Learned verbs and nouns
    join the alternation of the hand-written frame they fill (one pattern, not one more per
    class: every pattern is a state of the set's DFA and costs time on every trace)."""
    if name == "system_prompt":
        return learned_patterns("leak_verbs", (*LEAK_VERBS, *learned.LEAK_VERBS)) + patterns[1:]
    if name == "response_hijack":
        verbs = any_of(_HIJACK_VERBS, *learned.HIJACK_VERBS)
        outputs = any_of(_YOUR_OUTPUT, *learned.OUTPUT_NOUNS)
        return [rf"\b{verbs}{S}{G40}\byour{S}{outputs}\b", *patterns[1:]]
    if name == "override_instructions":
        return [
            *patterns,
            *learned_patterns("override_verbs", learned.OVERRIDE_VERBS),
            *learned_patterns("instruction_nouns", learned.INSTRUCTION_NOUNS),
        ]
    return patterns


RULES: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (name, tuple(fold_text(pattern) for pattern in _with_learned(name, patterns)))
    for name, patterns in (
        ("override_instructions", OVERRIDE + WORLD_OVERRIDE),
        ("role_reassignment", REASSIGN),
        ("new_instructions", NEW_INSTRUCTIONS),
        ("address_to_model", ADDRESS),
        ("label_request", LABEL + WORLD_LABEL),
        ("appeal_to_authority", AUTHORITY),
        ("response_hijack", RESPONSE_HIJACK),
        ("secrecy", SECRECY),
        ("system_prompt", SYSTEM_PROMPT),
        ("role_marker", ROLE),
        ("template_token", TEMPLATE),
        ("instruction_header", HEADER),
        ("judge_vocabulary", JUDGE),
    )
)
"""(rule name, its patterns), each pattern matched with ``(?i)`` on normalised text."""
