// WhatsApp chat exports as phones in 14 languages write them, Android (`date, time - `) and iOS
// (`[date, time] `), each with the locale's date and clock form and the marks WhatsApp writes in that
// language (shapes from public export parsers, their sample files and issue threads; synthetic content).
// Every chat holds the same moments, none with a day above 12, so the language and clock must decide.

const NNBSP = "\u202f";
const NBSP = "\u00a0";
const LRM = "\u200e";

export interface LocaleChat {
  id: string;
  /** The file name the phone gives the export (the zip for iOS, whose text is `_chat.txt`). */
  androidFile: string;
  iosZip: string;
  /** The three moments: 2024-01-05 09:05, 2024-01-05 21:30, 2024-01-06 08:00 (iOS adds seconds). */
  android: [string, string, string];
  ios: [string, string, string];
  /** Android's mark for media left out, and the other localised marks where the locale has them here. */
  mediaOmitted: string;
  deleted?: string;
  edited?: string;
  fileAttached?: string;
  /** A system line with a colon inside its quotation (a subject change). */
  subjectChange?: string;
  /** The date order the importer must settle on, and whether the dates alone decide it. */
  order: "dmy" | "mdy" | "ymd";
}

export const LOCALE_CHATS: LocaleChat[] = [
  {
    id: "en-US",
    androidFile: "WhatsApp Chat with Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    android: [`1/5/24, 9:05${NNBSP}AM`, `1/5/24, 9:30${NNBSP}PM`, `1/6/24, 8:00${NNBSP}AM`],
    ios: [`1/5/24, 9:05:10${NNBSP}AM`, `1/5/24, 9:30:00${NNBSP}PM`, `1/6/24, 8:00:05${NNBSP}AM`],
    mediaOmitted: "<Media omitted>",
    deleted: "This message was deleted",
    edited: "<This message was edited>",
    fileAttached: "file attached",
    subjectChange: 'Anna changed the subject from "Trip" to "Trip: Lisbon 2024"',
    order: "mdy",
  },
  {
    id: "en-GB",
    androidFile: "WhatsApp Chat with Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    android: ["05/01/2024, 09:05", "05/01/2024, 21:30", "06/01/2024, 08:00"],
    ios: ["05/01/2024, 09:05:10", "05/01/2024, 21:30:00", "06/01/2024, 08:00:05"],
    mediaOmitted: "<Media omitted>",
    deleted: "You deleted this message",
    edited: "<This message was edited>",
    fileAttached: "file attached",
    order: "dmy",
  },
  {
    id: "de",
    androidFile: "WhatsApp Chat mit Trip.txt",
    iosZip: "WhatsApp Chat mit Trip.zip",
    android: ["05.01.24, 09:05", "05.01.24, 21:30", "06.01.24, 08:00"],
    ios: ["05.01.24, 09:05:10", "05.01.24, 21:30:00", "06.01.24, 08:00:05"],
    mediaOmitted: "<Medien ausgeschlossen>",
    deleted: "Diese Nachricht wurde gelöscht.",
    edited: "<Diese Nachricht wurde bearbeitet>",
    fileAttached: "Datei angehängt",
    subjectChange: "Anna hat den Betreff von „Trip“ zu „Trip: Lissabon 2024“ geändert",
    order: "dmy",
  },
  {
    id: "fr",
    androidFile: "Discussion WhatsApp avec Trip.txt",
    iosZip: "Discussion WhatsApp avec Trip.zip",
    android: ["05/01/2024 à 09:05", "05/01/2024 à 21:30", "06/01/2024 à 08:00"],
    ios: ["05/01/2024 09:05:10", "05/01/2024 21:30:00", "06/01/2024 08:00:05"],
    mediaOmitted: "<Médias omis>",
    deleted: "Ce message a été supprimé",
    edited: "<Ce message a été modifié>",
    fileAttached: "fichier joint",
    subjectChange: "Anna a changé le sujet de « Trip » en « Trip: Lisbonne 2024 »",
    order: "dmy",
  },
  {
    id: "es",
    androidFile: "Chat de WhatsApp con Trip.txt",
    iosZip: "Chat de WhatsApp con Trip.zip",
    android: ["5/1/24, 9:05", "5/1/24, 21:30", "6/1/24, 8:00"],
    // Spanish (Mexico) iPhones on a 12-hour clock: `a. m.` / `p. m.` with no-break spaces.
    ios: [
      `5/1/24, 9:05:10${NNBSP}a.${NBSP}m.`,
      `5/1/24, 9:30:00${NNBSP}p.${NBSP}m.`,
      `6/1/24, 8:00:05${NNBSP}a.${NBSP}m.`,
    ],
    mediaOmitted: "<Multimedia omitido>",
    deleted: "Se eliminó este mensaje.",
    edited: "<Se editó este mensaje.>",
    fileAttached: "archivo adjunto",
    order: "dmy",
  },
  {
    id: "it",
    androidFile: "Chat WhatsApp con Trip.txt",
    iosZip: "Chat WhatsApp con Trip.zip",
    android: ["05/01/24, 09:05", "05/01/24, 21:30", "06/01/24, 08:00"],
    ios: ["05/01/24, 09:05:10", "05/01/24, 21:30:00", "06/01/24, 08:00:05"],
    mediaOmitted: "<Media omessi>",
    deleted: "Questo messaggio è stato eliminato",
    edited: "<Questo messaggio è stato modificato>",
    order: "dmy",
  },
  {
    id: "pt-BR",
    androidFile: "Conversa do WhatsApp com Trip.txt",
    iosZip: "Conversa do WhatsApp com Trip.zip",
    android: ["05/01/2024 09:05", "05/01/2024 21:30", "06/01/2024 08:00"],
    ios: ["05/01/2024 09:05:10", "05/01/2024 21:30:00", "06/01/2024 08:00:05"],
    mediaOmitted: "<Mídia oculta>",
    deleted: "Você apagou esta mensagem",
    edited: "<Mensagem editada>",
    order: "dmy",
  },
  {
    id: "nl",
    androidFile: "WhatsApp-chat met Trip.txt",
    iosZip: "WhatsApp-chat met Trip.zip",
    android: ["05-01-2024 09:05", "05-01-2024 21:30", "06-01-2024 08:00"],
    ios: ["05-01-2024 09:05:10", "05-01-2024 21:30:00", "06-01-2024 08:00:05"],
    mediaOmitted: "<Media weggelaten>",
    edited: "<Dit bericht is bewerkt>",
    order: "dmy",
  },
  {
    id: "fi",
    androidFile: "WhatsApp Chat - Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    android: ["5.1.2024 klo 9.05", "5.1.2024 klo 21.30", "6.1.2024 klo 8.00"],
    ios: ["5.1.2024 klo 9.05.10", "5.1.2024 klo 21.30.00", "6.1.2024 klo 8.00.05"],
    mediaOmitted: "<Media jätettiin pois>",
    order: "dmy",
  },
  {
    id: "sv",
    androidFile: "WhatsApp-chatt med Trip.txt",
    iosZip: "WhatsApp-chatt med Trip.zip",
    android: ["2024-01-05 09:05", "2024-01-05 21:30", "2024-01-06 08:00"],
    ios: ["2024-01-05 09:05:10", "2024-01-05 21:30:00", "2024-01-06 08:00:05"],
    mediaOmitted: "<Media utelämnat>",
    order: "ymd",
  },
  {
    id: "ru",
    androidFile: "Чат WhatsApp с Trip.txt",
    iosZip: "Чат WhatsApp с Trip.zip",
    android: ["05.01.2024, 09:05", "05.01.2024, 21:30", "06.01.2024, 08:00"],
    ios: ["05.01.2024, 09:05:10", "05.01.2024, 21:30:00", "06.01.2024, 08:00:05"],
    mediaOmitted: "<Без медиафайлов>",
    order: "dmy",
  },
  {
    id: "tr",
    androidFile: "Trip ile WhatsApp Sohbeti.txt",
    iosZip: "Trip ile WhatsApp Sohbeti.zip",
    android: ["5.01.2024 09:05", "5.01.2024 21:30", "6.01.2024 08:00"],
    ios: ["5.01.2024 09:05:10", "5.01.2024 21:30:00", "6.01.2024 08:00:05"],
    mediaOmitted: "<Medya dahil edilmedi>",
    order: "dmy",
  },
  {
    id: "ja",
    androidFile: "WhatsApp Chat - Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    android: ["2024/01/05 9:05", "2024/01/05 21:30", "2024/01/06 8:00"],
    ios: ["2024/01/05 午前9:05:10", "2024/01/05 午後9:30:00", "2024/01/06 午前8:00:05"],
    mediaOmitted: "<メディアなし>",
    subjectChange: "Annaがグループの件名を「Trip」から「Trip: リスボン」に変更しました",
    order: "ymd",
  },
  {
    id: "zh",
    androidFile: "WhatsApp Chat - Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    android: ["2024/1/5 上午9:05", "2024/1/5 下午9:30", "2024/1/6 上午8:00"],
    ios: ["2024/1/5 上午9:05:10", "2024/1/5 下午9:30:00", "2024/1/6 上午8:00:05"],
    mediaOmitted: "<省略多媒体文件>",
    order: "ymd",
  },
  {
    id: "ko",
    androidFile: "WhatsApp Chat - Trip.txt",
    iosZip: "WhatsApp Chat - Trip.zip",
    // Korean Android writes a 2-digit year first (`24. 1. 5.`): read day first it would be 2005.
    android: ["24. 1. 5. 오전 9:05", "24. 1. 5. 오후 9:30", "24. 1. 6. 오전 8:00"],
    ios: ["2024. 1. 5. 오전 9:05:10", "2024. 1. 5. 오후 9:30:00", "2024. 1. 6. 오전 8:00:05"],
    mediaOmitted: "<미디어 파일 제외됨>",
    order: "ymd",
  },
];

/** What every locale chat holds, as the importer must read it (times in UTC). */
export interface ExpectedMessage {
  sender: string | null;
  kind: "message" | "system" | "deleted";
  time: 0 | 1 | 2;
  edited: boolean;
  media_omitted: boolean;
  attachment_kind: string | null;
}

export const ANDROID_TIMES = [
  "2024-01-05T09:05:00.000Z",
  "2024-01-05T21:30:00.000Z",
  "2024-01-06T08:00:00.000Z",
];
export const IOS_TIMES = ["2024-01-05T09:05:10.000Z", "2024-01-05T21:30:00.000Z", "2024-01-06T08:00:05.000Z"];

/** Lines of a chat and, beside each message's first line, what it must import as (Anna's message by default). */
function collector() {
  const lines: string[] = [];
  const expected: ExpectedMessage[] = [];
  const add = (line: string, e: Partial<ExpectedMessage> & { time: 0 | 1 | 2 }) => {
    lines.push(line);
    const m = {
      sender: "Anna",
      kind: "message" as const,
      edited: false,
      media_omitted: false,
      attachment_kind: null,
      ...e,
    };
    // In one key order, so expectations compare with records read back as JSON.
    const { sender, kind, time, edited, media_omitted, attachment_kind } = m;
    expected.push({ sender, kind, time, edited, media_omitted, attachment_kind });
  };
  return { lines, expected, add };
}

/** The Android export of a locale's chat, and what it must import as. */
export function androidChat(c: LocaleChat): { text: string; expected: ExpectedMessage[] } {
  const [t1, t2, t3] = c.android;
  const { lines, expected, add } = collector();
  if (c.subjectChange) add(`${t1} - ${c.subjectChange}`, { time: 0, sender: null, kind: "system" });
  add(`${t1} - Anna: Hallo 👋`, { time: 0 });
  add(`${t2} - ~${NNBSP}Bruno: line one`, { time: 1, sender: "Bruno" });
  lines.push("line two");
  add(`${t2} - Anna: ${c.mediaOmitted}`, { time: 1, media_omitted: true, attachment_kind: "media" });
  if (c.deleted) add(`${t3} - Bruno: ${c.deleted}`, { time: 2, sender: "Bruno", kind: "deleted" });
  if (c.edited) add(`${t3} - Anna: see you ${c.edited}`, { time: 2, edited: true });
  if (c.fileAttached) {
    add(`${t3} - Anna: IMG-20240106-WA0001.jpg (${c.fileAttached})`, { time: 2, attachment_kind: "photo" });
  }
  return { text: lines.join("\n"), expected };
}

/** The iOS export (`_chat.txt`) of a locale's chat: system lines and marks start with U+200E. */
export function iosChat(c: LocaleChat): { text: string; expected: ExpectedMessage[] } {
  const [t1, t2, t3] = c.ios;
  const { lines, expected, add } = collector();
  if (c.subjectChange)
    add(`[${t1}] Trip: ${LRM}${c.subjectChange}`, { time: 0, sender: null, kind: "system" });
  add(`[${t1}] Anna: Hallo 👋`, { time: 0 });
  add(`[${t2}] ~${NNBSP}Bruno: line one`, { time: 1, sender: "Bruno" });
  lines.push("line two");
  add(`[${t2}] Anna: ${LRM}<attached: 00000003-PHOTO-2024-01-05-21-30-00.jpg>`, {
    time: 1,
    attachment_kind: "photo",
  });
  if (c.deleted) add(`[${t3}] Bruno: ${LRM}${c.deleted}`, { time: 2, sender: "Bruno", kind: "deleted" });
  if (c.edited) add(`[${t3}] Anna: see you ${LRM}${c.edited}`, { time: 2, edited: true });
  return { text: lines.join("\r\n"), expected };
}

/** An English iOS group chat with the lines that lose their sender or kind when read naively. */
export function iosGroupChat(): string {
  return [
    `[03/02/2024, 10:00:00] Trip: ${LRM}Messages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them.`,
    `[03/02/2024, 10:00:01] Trip: ${LRM}Anna changed the subject to "Trip: Lisbon 2024"`,
    `[03/02/2024, 10:01:00] Anna: ${LRM}Report.pdf • 3 pages ${LRM}<attached: 00000009-Report.pdf>`,
    `[03/02/2024, 10:02:00] ~${NNBSP}Bruno: ${LRM}This message was deleted.`,
    `[03/02/2024, 10:03:00] Carla: ${LRM}Location: https://maps.google.com/?q=38.7223,-9.1393`,
    `[03/02/2024, 10:04:00] Carla: meet at 10 ${LRM}<This message was edited>`,
    `[03/02/2024, 10:05:00] Anna: ${LRM}You deleted this message.`,
    `[03/02/2024, 10:06:00] Bruno: ${LRM}Missed voice call`,
  ].join("\r\n");
}

/** The same group on Android. */
export function androidGroupChat(): string {
  return [
    "03/02/2024, 10:00 - Messages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them. Learn more.",
    '03/02/2024, 10:00 - Anna changed the subject from "Trip" to "Trip: Lisbon 2024"',
    "03/02/2024, 10:01 - Anna: Report.pdf (file attached)",
    `03/02/2024, 10:02 - ~${NNBSP}Bruno: This message was deleted`,
    "03/02/2024, 10:03 - Carla: location: https://maps.google.com/?q=38.7223,-9.1393",
    "03/02/2024, 10:04 - Carla: meet at 10 <This message was edited>",
    "03/02/2024, 10:05 - Anna: You deleted this message",
  ].join("\n");
}
