// What WhatsApp writes into an export in the phone's language: the export's file name, the marks it
// puts in place of media, deleted and edited messages, attachments, and the opening encryption notice
// (which names the chat's language early). Gathered from public export parsers, their sample files and
// issue threads; matched without case. A phrase missing here costs only precision: the line stays a
// message with its text as exported.

export type Language =
  | "en"
  | "de"
  | "fr"
  | "es"
  | "it"
  | "pt"
  | "nl"
  | "fi"
  | "sv"
  | "ru"
  | "tr"
  | "ja"
  | "zh"
  | "ko";

const NAMES: Record<Language, string> = {
  en: "English",
  de: "German",
  fr: "French",
  es: "Spanish",
  it: "Italian",
  pt: "Portuguese",
  nl: "Dutch",
  fi: "Finnish",
  sv: "Swedish",
  ru: "Russian",
  tr: "Turkish",
  ja: "Japanese",
  zh: "Chinese",
  ko: "Korean",
};

export function languageName(language: Language): string {
  return NAMES[language];
}

/** How each language's phones write a short date; English is null: US month first, elsewhere day first. */
export const LANGUAGE_DATE_ORDER: Record<Language, "dmy" | "mdy" | "ymd" | null> = {
  en: null,
  de: "dmy",
  fr: "dmy",
  es: "dmy",
  it: "dmy",
  pt: "dmy",
  nl: "dmy",
  fi: "dmy",
  sv: "ymd",
  ru: "dmy",
  tr: "dmy",
  ja: "ymd",
  zh: "ymd",
  ko: "ymd",
};

/** `<prefix>Name.txt` / `.zip` per language; `{}` is the chat's name. */
const FILE_NAMES: [Language, RegExp][] = [
  ["en", /^WhatsApp[ _]Chat[ _](?:with|-|–)[ _](.+)$/i],
  ["de", /^WhatsApp[ _]Chat[ _]mit[ _](.+)$/i],
  ["fr", /^Discussion[ _]WhatsApp[ _]avec[ _](.+)$/i],
  ["es", /^Chat[ _]de[ _]WhatsApp[ _]con[ _](.+)$/i],
  ["it", /^Chat[ _]WhatsApp[ _]con[ _](.+)$/i],
  ["pt", /^Conversa[ _](?:do|no)[ _]WhatsApp[ _]com[ _](.+)$/i],
  ["nl", /^WhatsApp[ _-]chat[ _]met[ _](.+)$/i],
  ["sv", /^WhatsApp[ _-]chatt[ _]med[ _](.+)$/i],
  ["ru", /^Чат[ _]WhatsApp[ _]с[ _](.+)$/i],
  ["tr", /^(.+?)[ _]ile[ _]WhatsApp[ _]Sohbeti$/i],
];

/** The chat's name and language from an export's file name (`.txt` or `.zip`), or null when it names none. */
export function chatFromFileName(fileName: string): { chat: string; language: Language } | null {
  const stem = fileName.replace(/\.(txt|zip)$/i, "").replace(/ \(\d+\)$/, "");
  for (const [language, pattern] of FILE_NAMES) {
    const match = pattern.exec(stem);
    if (match) return { chat: match[1]!.replaceAll("_", " ").trim(), language };
  }
  return null;
}

/** The opening notice of every chat (Android has it as a system line, iOS marks it). */
const ENCRYPTION: [Language, string][] = [
  ["en", "messages and calls are end-to-end encrypted"],
  ["de", "nachrichten und anrufe sind ende-zu-ende-verschlüsselt"],
  ["fr", "les messages et les appels sont chiffrés de bout en bout"],
  ["es", "los mensajes y las llamadas están cifrados de extremo a extremo"],
  ["it", "i messaggi e le chiamate sono crittografati end-to-end"],
  ["pt", "as mensagens e as chamadas são protegidas com a criptografia de ponta a ponta"],
  ["nl", "berichten en gesprekken worden end-to-end versleuteld"],
  ["fi", "viestit ja puhelut ovat päästä päähän salattuja"],
  ["sv", "meddelanden och samtal är totalsträckskrypterade"],
  ["ru", "сообщения и звонки защищены сквозным шифрованием"],
  ["tr", "mesajlar ve aramalar uçtan uca şifrelidir"],
  ["ja", "メッセージと通話はエンドツーエンドで暗号化されています"],
  ["zh", "消息和通话都进行端到端加密"],
  ["ko", "메시지와 통화는 종단간 암호화"],
];

/** Android's one mark for any media left out of the export. */
const MEDIA_OMITTED: [Language, string][] = [
  ["en", "<media omitted>"],
  ["de", "<medien ausgeschlossen>"],
  ["de", "<medien weggelassen>"],
  ["fr", "<médias omis>"],
  ["fr", "<fichier omis>"],
  ["es", "<multimedia omitido>"],
  ["es", "<archivo omitido>"],
  ["it", "<media omessi>"],
  ["it", "<media omesso>"],
  ["pt", "<mídia oculta>"],
  ["pt", "<arquivo de mídia oculto>"],
  ["pt", "<ficheiro não revelado>"],
  ["pt", "<multimédia omitido>"],
  ["nl", "<media weggelaten>"],
  ["fi", "<media jätettiin pois>"],
  ["fi", "<media jätetty pois>"],
  ["sv", "<media utelämnat>"],
  ["sv", "<media har utelämnats>"],
  ["ru", "<без медиафайлов>"],
  ["ru", "<файл пропущен>"],
  ["tr", "<medya dahil edilmedi>"],
  ["tr", "<medya atlanmış>"],
  ["ja", "<メディアなし>"],
  ["ja", "<メディアは含まれていません>"],
  ["zh", "<忽略多媒體檔>"],
  ["zh", "<省略多媒体文件>"],
  ["zh", "<省略影音内容>"],
  ["ko", "<미디어 파일 제외됨>"],
  ["ko", "<미디어 파일을 생략한 대화내용>"],
];

/** iOS names the kind of the media it left out: `image omitted`, `Bild weggelassen`, … */
const TYPED_OMITTED: [Language, RegExp, Record<string, string>][] = [
  [
    "en",
    /^(image|video|audio|sticker|gif|document|contact card) omitted$/i,
    { image: "photo", "contact card": "contact" },
  ],
  [
    "de",
    /^(bild|video|audio|sticker|gif|dokument|kontaktkarte) (?:weggelassen|ausgelassen)$/i,
    { bild: "photo", dokument: "document", kontaktkarte: "contact" },
  ],
  [
    "es",
    /^(imagen|video|vídeo|audio|sticker|gif|documento|tarjeta de contacto) omitid[oa]$/i,
    { imagen: "photo", vídeo: "video", documento: "document", "tarjeta de contacto": "contact" },
  ],
  [
    "fr",
    /^(image|vidéo|audio|sticker|gif|document|fiche contact) (?:absente?|omise?|retirée?)$/i,
    { image: "photo", vidéo: "video", "fiche contact": "contact" },
  ],
  [
    "it",
    /^(immagine|video|audio|sticker|gif|documento) omess[oa]$/i,
    { immagine: "photo", documento: "document" },
  ],
  [
    "pt",
    /^(imagem|vídeo|áudio|figurinha|gif|documento) (?:ocultad[oa]|omitid[oa])$/i,
    { imagem: "photo", vídeo: "video", áudio: "audio", figurinha: "sticker", documento: "document" },
  ],
  ["nl", /^(afbeelding|video|audio|sticker|gif|document) weggelaten$/i, { afbeelding: "photo" }],
];

/** What replaces a deleted message: by others, and by the exporting person (`You deleted …`). */
const DELETED: [Language, string][] = [
  ["en", "this message was deleted"],
  ["en", "you deleted this message"],
  ["de", "diese nachricht wurde gelöscht"],
  ["de", "du hast diese nachricht gelöscht"],
  ["fr", "ce message a été supprimé"],
  ["fr", "vous avez supprimé ce message"],
  ["es", "se eliminó este mensaje"],
  ["es", "eliminaste este mensaje"],
  ["es", "este mensaje fue eliminado"],
  ["it", "questo messaggio è stato eliminato"],
  ["it", "hai eliminato questo messaggio"],
  ["pt", "mensagem apagada"],
  ["pt", "esta mensagem foi apagada"],
  ["pt", "você apagou esta mensagem"],
  ["pt", "esta mensagem foi eliminada"],
  ["pt", "eliminou esta mensagem"],
  ["nl", "dit bericht is verwijderd"],
  ["nl", "je hebt dit bericht verwijderd"],
  ["fi", "tämä viesti poistettiin"],
  ["fi", "poistit tämän viestin"],
  ["sv", "det här meddelandet raderades"],
  ["sv", "du raderade det här meddelandet"],
  ["ru", "данное сообщение удалено"],
  ["ru", "вы удалили данное сообщение"],
  ["tr", "bu mesaj silindi"],
  ["tr", "bu mesajı sildiniz"],
  ["ja", "このメッセージは削除されました"],
  ["ja", "メッセージを削除しました"],
  ["zh", "此消息已删除"],
  ["zh", "你删除了此消息"],
  ["ko", "삭제된 메시지입니다"],
  ["ko", "메시지를 삭제했습니다"],
];

/** What follows an edited message's text: `<This message was edited>`. */
const EDITED: [Language, string][] = [
  ["en", "this message was edited"],
  ["de", "diese nachricht wurde bearbeitet"],
  ["fr", "ce message a été modifié"],
  ["es", "se editó este mensaje"],
  ["es", "mensaje editado"],
  ["it", "questo messaggio è stato modificato"],
  ["pt", "mensagem editada"],
  ["nl", "dit bericht is bewerkt"],
  ["fi", "tätä viestiä on muokattu"],
  ["sv", "det här meddelandet har redigerats"],
  ["ru", "сообщение изменено"],
  ["tr", "bu mesaj düzenlendi"],
  ["ja", "このメッセージは編集されました"],
  ["zh", "此消息已编辑"],
  ["ko", "수정된 메시지입니다"],
];

/** Android's ` (file attached)` after an attached file's name. */
const FILE_ATTACHED: [Language, string][] = [
  ["en", "file attached"],
  ["de", "datei angehängt"],
  ["fr", "fichier joint"],
  ["es", "archivo adjunto"],
  ["it", "file allegato"],
  ["pt", "arquivo anexado"],
  ["pt", "ficheiro anexado"],
  ["nl", "bestand bijgevoegd"],
  ["fi", "tiedosto liitetty"],
  ["sv", "fil bifogad"],
  ["ru", "файл прикреплен"],
  ["tr", "dosya ekli"],
  ["ja", "ファイル添付"],
  ["zh", "文件附件"],
  ["ko", "파일 첨부"],
];

const normalise = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[.。]$/, "");
const lookup = (table: [Language, string][]) => new Map(table.map(([l, phrase]) => [phrase, l]));
const MEDIA_OMITTED_MAP = lookup(MEDIA_OMITTED);
const DELETED_MAP = lookup(DELETED);
const EDITED_MAP = lookup(EDITED);
const FILE_ATTACHED_MAP = lookup(FILE_ATTACHED);

/** The language of Android's `<Media omitted>` mark, or null when the text is no such mark. */
export function mediaOmittedMark(text: string): Language | null {
  return MEDIA_OMITTED_MAP.get(normalise(text)) ?? null;
}

/** iOS's `image omitted` in any listed language: the media kind (photo, video, …) and the language. */
export function typedOmittedMark(text: string): { kind: string; language: Language } | null {
  const line = text.trim();
  for (const [language, pattern, kinds] of TYPED_OMITTED) {
    const match = pattern.exec(line);
    if (match) {
      const word = match[1]!.toLowerCase();
      return { kind: kinds[word] ?? word, language };
    }
  }
  return null;
}

/** `This message was deleted` (and the exporter's own `You deleted this message`) in any listed language. */
export function deletedMark(text: string): Language | null {
  return DELETED_MAP.get(normalise(text)) ?? null;
}

/** A trailing `<This message was edited>`: the text without it and the language, or null. */
export function editedMark(text: string): { text: string; language: Language } | null {
  const match = /\s*\u200e?<([^<>]+)>\s*$/.exec(text);
  if (!match) return null;
  const language = EDITED_MAP.get(normalise(match[1]!));
  return language ? { text: text.slice(0, match.index), language } : null;
}

/** Android's `NAME.ext (file attached)`: the file's name and the language, or null. */
export function fileAttachedMark(text: string): { file: string; language: Language | null } | null {
  const match = /^(.+\.[A-Za-z0-9]{1,5}) \(([^()]+)\)$/.exec(text.trim());
  if (!match) return null;
  const language = FILE_ATTACHED_MAP.get(normalise(match[2]!)) ?? null;
  // Android's own media names (IMG-20240101-WA0001.jpg) are attachments whatever the phrase's language.
  if (language === null && !/^(?:IMG|VID|AUD|PTT|STK|DOC)-\d{8}-WA\d+/.test(match[1]!)) return null;
  return { file: match[1]!, language };
}

/** The language an encryption notice is written in, or null when the text is none. */
export function encryptionNotice(text: string): Language | null {
  const lower = text.trim().toLowerCase();
  for (const [language, phrase] of ENCRYPTION) if (lower.startsWith(phrase)) return language;
  return null;
}
