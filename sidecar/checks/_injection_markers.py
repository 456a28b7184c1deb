"""Injection rules about secrecy, the prompt and markup: do not tell the user, reveal the
system prompt, chat role markers and tags, template tokens, instruction headers and the
judge's own vocabulary (written against normalised text, like
:mod:`sidecar.checks._injection_rules`)."""

from __future__ import annotations

from sidecar.checks._injection_syntax import CJK, G20, S, any_of

__all__ = ["HEADER", "JUDGE", "LEAK_VERBS", "ROLE", "SECRECY", "SYSTEM_PROMPT", "TEMPLATE"]

_USER = any_of("user", "users", "human", "reader", "operator")
SECRECY = [
    rf"\b(?:do{S}not|don't|dont|never|must{S}not){S}(?:tell|inform|alert|notify|warn|let)"
    rf"{S}(?:the{S})?{_USER}\b",
    rf"\b(?:do{S}not|don't|dont|never){S}(?:mention|reveal|disclose|repeat|acknowledge)"
    rf"{S}(?:these|this|the|that|your|any{S}of{S}(?:these|this|the)){S}(?:instructions?|"
    r"prompt|message|note|directives?)\b",
    rf"\bwithout{S}(?:telling|informing|alerting|notifying|letting){S}(?:the{S})?{_USER}\b",
    rf"\bkeep{S}(?:this|these|it){S}(?:instructions?{S})?(?:secret|hidden|confidential){S}"
    rf"from{S}(?:the{S})?{_USER}\b",
    rf"\b(?:sag|sage|sagen{S}sie|erzahl|erzahle|verrate|verraten{S}sie|teile|informiere)"
    rf"{S}(?:dem|den|der){S}(?:nutzer|benutzer|anwender|leser|user)\w{{0,2}}{S}"
    r"(?:nichts|nicht|kein\w{0,2})\b",
    rf"\bohne{S}(?:dem|den|die){S}(?:nutzer|benutzer|anwender|leser)\w{{0,2}}{S}(?:davon{S})?"
    rf"(?:etwas{S})?(?:zu{S})?(?:informieren|sagen|erzahlen|benachrichtigen|mitzuteilen)\b",
    rf"\b(?:erwahne|verrate|wiederhole)\w{{0,2}}{S}(?:diese|die|deine)\w?{S}(?:anweisung\w{{0,2}}|"
    rf"nachricht|prompt){S}nicht\b",
    rf"\bne{S}(?:le{S}|lui{S}|leur{S}|rien{S})?(?:dis|dites|revele|revelez|mentionne|mentionnez|"
    rf"signale|signalez){S}(?:rien|pas|jamais){S}(?:de{S}(?:cela|ceci){S})?(?:a|aux)"
    rf"{S}(?:l'\s{{0,1}}|les{S})?utilisat\w{{2,5}}",
    rf"\bsans{S}(?:le{S}dire|prevenir|informer|avertir|en{S}informer){S}(?:a{S})?"
    rf"(?:l'\s{{0,1}}|les{S})?utilisat\w{{2,5}}",
    rf"\bne{S}mentionne\w{{0,2}}{S}pas{S}(?:ces|cette|les|tes){S}(?:instructions?|consignes?|"
    r"message)\b",
    rf"\bno{S}(?:le{S}|les{S})?(?:digas|diga|cuentes|cuente|menciones|mencione|reveles|revele|"
    rf"informes|informe|avises|avise){S}(?:nada{S}|esto{S}|eso{S})?(?:al|a{S}los|a{S}la){S}"
    r"(?:usuari[oa]s?|lector)",
    rf"\bsin{S}(?:decirle|decir|informar|avisar|contarle)\w{{0,2}}{S}(?:nada{S})?(?:al|a{S}los)"
    rf"{S}usuari",
    rf"\bnao{S}(?:conte|diga|mencione|revele|informe|avise|fale){S}(?:nada{S}|isso{S}|isto{S})?"
    rf"(?:ao|aos|a|para{S}o|para{S}os){S}(?:usuari[oa]s?|utilizador\w{{0,2}}|leitor)",
    rf"\bsem{S}(?:contar|dizer|informar|avisar){S}(?:nada{S})?(?:ao|aos|o|os){S}"
    r"(?:usuari|utilizador)",
    rf"\b(?:no|nao){S}(?:menciones|mencione|reveles|revele|repitas|repita){S}(?:estas|esta|las|"
    rf"as|tus|suas){S}instruc",
    rf"\bnon{S}(?:dire|dirlo|dirgli|rivelare|menzionare|riferire|informare|avvisare){S}"
    rf"(?:nulla{S}|niente{S}|questo{S})?(?:all'\s{{0,1}}|agli{S}|al{S}|a{S}l'\s{{0,1}})utent",
    rf"\bsenza{S}(?:dirlo|dire{S}nulla|informare|avvisare){S}(?:all'\s{{0,1}}|l'\s{{0,1}}|"
    rf"gli{S}|agli{S})utent",
    rf"\bnon{S}(?:menzionare|rivelare|ripetere){S}(?:queste|questa|le|tue){S}istruzion",
    r"(?:不要|别|別|切勿|请勿|請勿|不得|不可)(?:告诉|告訴|通知|提醒|透露给|透露給|让|讓)(?:用户|用戶|使用者|读者|讀者)",
    r"(?:不要|别|別|切勿|请勿|請勿)(?:向|对|對)(?:用户|用戶|使用者)(?:透露|提及|说明|說明|提起|解释|解釋)",
    r"(?:不要|别|別|切勿|请勿|請勿)(?:提及|透露|泄露|洩露|重复|重複)(?:这些|這些|此|本|以上)(?:指令|指示|说明|"
    r"說明|消息|訊息)",
    rf"(?:ユーザー|ユーザ|利用者|読者)(?:に|には){CJK}{{0,8}}(?:伝え|言わ|知らせ|教え|明かさ|話さ)"
    r"(?:ないで|ない|るな)",
    r"(?:ユーザー|ユーザ|利用者)に(?:知られ|気づかれ|バレ)(?:ない|ぬ)よう",
    rf"(?:この|これらの)(?:指示|命令|メッセージ){CJK}{{0,6}}(?:言及|明か|開示)(?:しないで|さないで|するな)",
]

LEAK_VERBS = (
    "reveal",
    "print",
    "output",
    "show",
    "display",
    "repeat",
    "leak",
    "disclose",
    "dump",
    rf"tell{S}me",
    rf"write{S}out",
    rf"give{S}me",
)
SYSTEM_PROMPT = [
    rf"\b(?:{'|'.join(LEAK_VERBS)})\b{G20}\b(?:system{S}prompt|(?:initial|hidden|original|secret){S}"
    rf"(?:prompt|instructions)|your{S}(?:instructions|prompt|rules|guidelines))\b",
    rf"\b(?:new|override|updated){S}system{S}(?:prompt|message|instructions?)\b",
    rf"\bsystem{S}(?:override|prompt|instructions?|message){S}?:",
    rf"\b(?:zeige|zeig|gib|verrate|wiederhole|nenne)\b{G20}\b(?:systemprompt|system-prompt|"
    rf"systemanweisung\w{{0,2}}|deine\w?{S}(?:anweisungen|prompt))\b",
    rf"\bneue\w?{S}system(?:prompt|anweisung|nachricht)\w{{0,2}}\b",
    rf"\b(?:revele|montre|affiche|repete|donne|ecris|divulgue)\w{{0,2}}\b{G20}\b(?:prompt{S}"
    rf"(?:systeme|du{S}systeme|initial)|instructions{S}(?:initiales|systeme|cachees)|"
    rf"(?:tes|vos){S}instructions)\b",
    rf"\b(?:revela|muestra|imprime|repite|dime|escribe|divulga|revele|mostre|mostra|imprima|"
    rf"repita|diga|escreva|divulgue)\b{G20}\b(?:prompt{S}(?:del|de|do){S}sistema|prompt{S}"
    rf"inicial|instrucciones{S}(?:iniciales|del{S}sistema|ocultas)|instrucoes{S}(?:iniciais|"
    rf"do{S}sistema|ocultas)|(?:tus|suas){S}instruc\w{{2,5}})",
    rf"\b(?:rivela|mostra|stampa|ripeti|dimmi|scrivi|divulga)\w{{0,2}}\b{G20}\b(?:prompt{S}"
    rf"(?:di|del){S}sistema|prompt{S}iniziale|istruzioni{S}(?:iniziali|di{S}sistema|nascoste)|"
    rf"(?:le{S})?tue{S}istruzioni)\b",
    rf"(?:输出|輸出|显示|顯示|打印|重复|重複|泄露|洩露|告诉我|告訴我|透露|展示|说出|說出){CJK}{{0,8}}"
    r"(?:系统提示|系統提示|系统指令|系統指令|初始指令|原始指令|你的指令|隐藏指令|隱藏指令|提示词|提示詞)",
    r"(?:新的?|覆盖|覆蓋)(?:系统|系統)(?:提示|指令)",
    rf"(?:システムプロンプト|初期プロンプト|元の指示|隠された指示|あなたの指示){CJK}{{0,8}}"
    r"(?:表示|出力|教え|見せ|繰り返|公開|開示)",
]

_ROLES = any_of(
    "system",
    "developer",
    "assistant",
    "human",
    "sistema",
    "systeme",
    "systemnachricht",
    "assistent",
    "assistente",
    "asistente",
    "系统",
    "系統",
    "助手",
    "システム",
    "アシスタント",
)
_TAGS = any_of(
    "system",
    "assistant",
    "developer",
    "system_prompt",
    "system-prompt",
    "sys",
    "instructions?",
    "admin",
    "im_start",
)
ROLE = [
    rf"(?m)^[ \t>]{{0,8}}{_ROLES}[ \t]{{0,4}}(?:prompt|message|nachricht|messaggio|mensaje|"
    r"mensagem)?[ \t]{0,4}:",
    rf"<\s{{0,2}}{_TAGS}\s{{0,2}}>\s{{0,8}}[^<\s][^<\n]{{15}}",
    rf"(?m)^[ \t]{{0,8}}\[\s{{0,2}}{_ROLES}(?:{S}(?:note|message|prompt|override|instructions?))?"
    r"\s{0,2}\]",
    r"\[\s{0,2}(?:system|admin|developer)\s{1,3}(?:note|message|prompt|override|instructions?)"
    r"\s{0,2}\]",
]
TEMPLATE = [
    r"<\|[a-z_]{2,24}\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>|<\|?(?:begin|end)"
    r"[_ ]?of[_ ]?(?:text|sentence)\|?>",
]
HEADER = [
    r"(?m)^[ \t]{0,8}#{2,4}[ \t]{0,4}(?:instruction|response|system(?: prompt)?|anweisung|"
    r"instruccion|instrucao|istruzione|consigne|指示|指令)(?:[ \t]{0,4}:|[ \t]{0,4}$)",
]
JUDGE = [
    r"\bevidence_quote\b|\bclaim_id\b|\"verdicts?\"[ \t]{0,3}:",
    r"\b(?:verdict|urteil|verdikt|veredicto|verdetto|veredito)[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
    r"(?:supported|partial|unsupported|unterstutzt|respaldado|suportado|supportato|etaye)\b",
    r"(?:判定|结论|結論|判決|评判|評判)\s{0,2}[:：=]\s{0,2}[\"“「]?(?:支持|supported|サポート)",
]
