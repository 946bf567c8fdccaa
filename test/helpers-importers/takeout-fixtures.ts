// Google Takeouts as accounts in other languages and with YouTube export them: folder and file names in
// the account's language, titles too, YouTube's watch and search history beside My Activity, Google
// Photos' sidecar JSON that is not activity, an internationalised host (synthetic content).

const watch = (title: string, id: string, time: string, suffix = "") => ({
  header: "YouTube",
  title: `${title}${suffix}`,
  titleUrl: `https://www.youtube.com/watch?v\u003d${id}`,
  subtitles: [{ name: "Kanal", url: "https://www.youtube.com/channel/UC000" }],
  time,
  products: ["YouTube"],
  activityControls: ["YouTube-Verlauf"],
});

/** A German account's Takeout: `Meine Aktivitäten`, `YouTube und YouTube Music/Verlauf`, Google Fotos. */
export function germanTakeout(): Record<string, string> {
  return {
    "Takeout/archive_browser.html": "<html></html>",
    "Takeout/Meine Aktivitäten/Suche/MeineAktivitäten.json": JSON.stringify(
      [
        {
          header: "Suche",
          title: "Gesucht nach wetter münchen",
          titleUrl: "https://www.google.com/search?q\u003dwetter+m%C3%BCnchen",
          time: "2024-03-01T08:00:00.000Z",
          products: ["Suche"],
          activityControls: ["Web- \u0026 App-Aktivitäten"],
        },
        {
          header: "Suche",
          title: "https://straße.example/ besucht",
          titleUrl: "https://www.google.com/url?q\u003dhttps://stra%C3%9Fe.example/",
          time: "2024-03-01T08:01:00.000Z",
          products: ["Suche"],
        },
      ],
      null,
      2,
    ),
    "Takeout/Meine Aktivitäten/Maps/MeineAktivitäten.html": "<html></html>",
    "Takeout/YouTube und YouTube Music/Verlauf/Wiedergabeverlauf.json": JSON.stringify(
      [
        watch("Brotbacken für Anfänger", "abc123", "2024-03-02T19:00:00.000Z", " angesehen"),
        watch("Alpen im Winter", "def456", "2024-03-03T20:00:00.000Z", " angesehen"),
      ],
      null,
      2,
    ),
    "Takeout/YouTube und YouTube Music/Verlauf/Suchverlauf.json": JSON.stringify([
      {
        header: "YouTube",
        title: "Gesucht nach sauerteig",
        titleUrl: "https://www.youtube.com/results?search_query\u003dsauerteig",
        time: "2024-03-02T18:59:00.000Z",
        products: ["YouTube"],
      },
    ]),
    "Takeout/YouTube und YouTube Music/Abos/Abos.csv": "Kanal-ID,Kanal-URL,Kanaltitel\n",
    "Takeout/Chrome/Verlauf.json": JSON.stringify({
      "Browser History": [
        {
          favicon_url: "https://xn--strae-oqa.example/favicon.ico",
          page_transition: "LINK",
          title: "Straße",
          url: "https://xn--strae-oqa.example/weg",
          client_id: "c1==",
          time_usec: 1_709_280_000_000_000,
        },
      ],
    }),
    "Takeout/Google Fotos/Urlaub 2024/IMG_0001.jpg.json": JSON.stringify({
      title: "IMG_0001.jpg",
      photoTakenTime: { timestamp: "1709280000" },
    }),
    "Takeout/Google Fotos/Urlaub 2024/IMG_0001.jpg": "jpeg",
  };
}

/** An English account's YouTube export: watch and search history, and the same watch in My Activity. */
export function youtubeTakeout(): Record<string, string> {
  const watched = {
    header: "YouTube",
    title: "Watched Sourdough basics",
    titleUrl: "https://www.youtube.com/watch?v\u003dabc123",
    subtitles: [{ name: "Bakery", url: "https://www.youtube.com/channel/UC111" }],
    time: "2024-03-02T19:00:00.000Z",
    products: ["YouTube"],
    activityControls: ["YouTube watch history"],
  };
  return {
    "Takeout/YouTube and YouTube Music/history/watch-history.json": JSON.stringify([watched], null, 2),
    "Takeout/YouTube and YouTube Music/history/search-history.json": JSON.stringify([
      {
        header: "YouTube",
        title: "Searched for sourdough",
        titleUrl: "https://www.youtube.com/results?search_query\u003dsourdough",
        time: "2024-03-02T18:59:00.000Z",
        products: ["YouTube"],
        activityControls: ["YouTube search history"],
      },
    ]),
    "Takeout/My Activity/YouTube/MyActivity.json": JSON.stringify([watched], null, 2),
  };
}
