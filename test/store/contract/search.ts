// Contract: full-text search — optional words ranked by BM25, +required, -excluded, phrases,
// prefixes, stemming, grant hiding (fields, connections, time), snippets, deterministic order,
// recall, unmatched terms and hostile syntax.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { parseSearchQuery, type SearchClause } from "../../../src/core/search-query.js";
import { CHUNK_CHARS } from "../../../src/core/text-chunks.js";
import type { SearchQuery, StoredSearchHit } from "../../../src/store/store.js";
import type { TestBackend } from "../../helpers/backends.js";
import { allMessages, byteCompare, type Loaded, openLoaded, scopeOf } from "./fixtures.js";
import { matchesQuery } from "./search-oracle.js";

const LONG_BODY = `${"filler words here ".repeat(Math.ceil(CHUNK_CHARS / 18) + 10)} the xylophone <solo> & more`;

/** A snippet's whole-field size and digest, as a field window reports them (code points, sha256). */
const whole = (text: string) => ({
  sizeChars: [...text].length,
  digest: `sha256:${createHash("sha256").update(text).digest("hex")}`,
});

export function searchContract(backend: TestBackend): void {
  describe("search", () => {
    let L: Loaded;
    before(async () => {
      L = await openLoaded(backend);
      await L.store.applyBatch(L.connB, "messages", [
        {
          op: "upsert",
          data: { message_id: "long", subject: "Concert", body: LONG_BODY, sent_at: "2023-06-01T00:00:00Z" },
        },
      ]);
    });
    after(async () => L.opened.cleanup());
    const run = (q: string, options: Partial<SearchQuery> & { scope?: ReturnType<typeof scopeOf> } = {}) =>
      L.store.search([options.scope ?? scopeOf(L)], {
        clauses: parseSearchQuery(q),
        conditions: options.conditions ?? [],
        limit: options.limit ?? 100,
        offset: options.offset ?? 0,
        rankWindow: options.rankWindow ?? 10_000,
      });
    const ids = (hits: StoredSearchHit[]) => hits.map((h) => h.recordId).sort();
    const oracle = (clauses: SearchClause[], fields = ["subject", "from", "body", "secret_note"]) =>
      allMessages(L)
        .filter((m) =>
          matchesQuery(
            fields.map((f) => String(m[f] ?? "")),
            clauses,
          ),
        )
        .map((m) => m.message_id)
        .sort();

    test("words are optional and ranked: more of the words first; +required, -excluded", async () => {
      const result = await run("invoice budget");
      assert.deepEqual(ids(result.hits), oracle(parseSearchQuery("invoice budget")));
      const both = oracle(parseSearchQuery("+invoice +budget"));
      assert.ok(both.length > 0 && result.hits.length > both.length);
      // Records holding both words outrank those holding one.
      assert.deepEqual(ids(result.hits.slice(0, both.length)), both);
      assert.deepEqual(ids((await run("+invoice +budget")).hits), both);
      assert.deepEqual(ids((await run("invoice -budget")).hits), oracle(parseSearchQuery("invoice -budget")));
      assert.ok((await run("invoice -budget")).hits.length > 0);
      assert.deepEqual(ids((await run("alice piano")).hits), oracle(parseSearchQuery("alice piano")));
      const missing = await run("invoice nonexistentword");
      assert.deepEqual(ids(missing.hits), oracle(parseSearchQuery("invoice")));
      assert.deepEqual(missing.unmatched, ["nonexistentword"]);
      assert.deepEqual((await run("+invoice +nonexistentword")).hits, []);
      assert.deepEqual(result.recall, { complete: true, rankingScope: "all_matches" });
      assert.deepEqual(result.unmatched, []);
    });

    test("stopwords never decide a match; stems and folded diacritics do", async () => {
      const question = await run("what did the message say about the invoices");
      assert.deepEqual(ids(question.hits), oracle(parseSearchQuery("message say invoice")));
      assert.deepEqual(question.unmatched, ["say"]);
      assert.deepEqual(ids((await run("Invoices")).hits), ids((await run("invoice")).hits));
      // Only stopwords: they are searched as words (the body "talks about" holds "about").
      assert.deepEqual(ids((await run("about")).hits), oracle(parseSearchQuery("about")));
      assert.ok((await run("about")).hits.length > 0);
      assert.deepEqual(ids((await run("MÉSSAGE")).hits), ids((await run("message")).hits));
    });

    test("phrases need adjacency; prefixes match token starts", async () => {
      const phrase = await run('"talks about piano"');
      assert.deepEqual(ids(phrase.hits), oracle(parseSearchQuery('"talks about piano"')));
      assert.ok(phrase.hits.length > 0);
      assert.deepEqual((await run('"about talks"')).hits, []);
      const prefix = await run("invo*");
      assert.deepEqual(ids(prefix.hits), oracle(parseSearchQuery("invo*")));
      assert.equal(prefix.hits.length, 10);
      // A prefix that is a whole word finds its stemmed forms too (invoice → invoic).
      assert.deepEqual(ids((await run("invoice*")).hits), ids(prefix.hits));
      assert.deepEqual((await run("invo")).hits, []);
    });

    test("hits carry identity, title, matched fields and a marked snippet", async () => {
      const { hits } = await run("budget", { scope: scopeOf(L, { fields: ["subject", "body", "sent_at"] }) });
      const m00 = hits.find((h) => h.recordId === "m00");
      assert.ok(m00);
      assert.equal(m00.connectionId, L.connA);
      assert.equal(m00.connectorKey, "testmail");
      assert.equal(m00.stream, "messages");
      assert.equal(m00.time, "2024-01-01T00:00:00.000Z");
      assert.equal(m00.title, "Invoice March");
      assert.deepEqual(m00.matchedFields, ["body"]);
      assert.deepEqual(m00.snippet, {
        field: "body",
        text: "Message 0 talks about <mark>budget</mark> and piano.",
        ...whole("Message 0 talks about budget and piano."),
        // The range of the field the snippet shows (issue 20 item 9): here all of it.
        startChars: 0,
        endChars: 39,
      });
      assert.equal(typeof m00.score, "number");
      const titleOnly = (await run("march", { scope: scopeOf(L, { fields: ["body"] }) })).hits;
      assert.deepEqual(titleOnly, []);
      const noTitle = (await run("budget", { scope: scopeOf(L, { fields: ["body"] }) })).hits;
      assert.ok(noTitle.length > 0 && noTitle.every((h) => h.title === null));
    });

    test("snippets prefer a non-title field and come from chunked text", async () => {
      const both = (await run("invoice")).hits.find((h) => h.recordId === "m00");
      assert.deepEqual(both?.snippet, {
        field: "subject",
        text: "<mark>Invoice</mark> March",
        ...whole("Invoice March"),
        startChars: 0,
        endChars: 13,
      });
      const long = (await run("xylophone")).hits;
      assert.deepEqual(ids(long), ["long"]);
      assert.equal(long[0].snippet?.field, "body");
      assert.match(long[0].snippet?.text ?? "", /the <mark>xylophone<\/mark> &lt;solo&gt; &amp; more$/);
      // A chunked field's size and digest are the whole text's, not the chunk's the snippet came from.
      assert.deepEqual(
        { sizeChars: long[0].snippet?.sizeChars, digest: long[0].snippet?.digest },
        whole(LONG_BODY),
      );
      // Its range is in the whole field's code points: the snippet ends where the field does.
      const cps = [...LONG_BODY];
      assert.equal(long[0].snippet?.endChars, cps.length);
      const start = long[0].snippet?.startChars ?? -1;
      assert.ok(start > 0 && cps.slice(start).join("").includes("xylophone"));
    });

    test("a query matching only a hidden field returns nothing; snippets never show hidden fields", async () => {
      const granted = scopeOf(L, { fields: ["subject", "from", "body"] });
      assert.deepEqual((await run("zebracode", { scope: granted })).hits, []);
      assert.deepEqual((await run("+invoice +sentinel", { scope: granted })).hits, []);
      // An optional word only a hidden field holds is named as unmatched, and matches nothing.
      const either = await run("invoice sentinel", { scope: granted });
      assert.deepEqual(ids(either.hits), oracle(parseSearchQuery("invoice"), ["subject", "from", "body"]));
      assert.deepEqual(either.unmatched, ["sentinel"]);
      const all = await run("zebracode");
      assert.equal(all.hits.length, 30);
      assert.ok(
        all.hits.every((h) => h.matchedFields.join() === "secret_note" && h.snippet?.field === "secret_note"),
      );
      const invoice = await run("invoice", { scope: granted });
      for (const hit of invoice.hits) {
        assert.ok(!JSON.stringify(hit).includes("SENTINEL"));
        assert.ok(!hit.matchedFields.includes("secret_note"));
      }
    });

    test("connections and time ranges hide hits", async () => {
      const onlyB = await run("message", { scope: scopeOf(L, { connectionIds: [L.connB] }) });
      assert.equal(onlyB.hits.length, 15);
      assert.ok(onlyB.hits.every((h) => h.connectionId === L.connB));
      const ranged = await run("message", { scope: scopeOf(L, { since: "2024-02-01T00:00:00Z" }) });
      const expected = allMessages(L)
        .filter((m) => typeof m.sent_at === "string" && m.sent_at >= "2024-02-01T00:00:00.000Z")
        .map((m) => m.message_id)
        .sort();
      assert.deepEqual(ids(ranged.hits), expected);
    });

    test("conditions narrow a single-scope search", async () => {
      const { hits } = await run("message", {
        conditions: [{ field: "from", op: "eq", value: "alice@example.com" }],
      });
      assert.deepEqual(
        ids(hits),
        allMessages(L)
          .filter((m) => m.from === "alice@example.com")
          .map((m) => m.message_id)
          .sort(),
      );
    });

    test("order is score desc, then time desc (nulls last), connection, stream, record; paging is exact", async () => {
      const full = (await run("message")).hits;
      assert.equal(full.length, 30);
      for (let i = 1; i < full.length; i++) {
        const [a, b] = [full[i - 1], full[i]];
        if (a.score !== b.score) assert.ok(a.score > b.score);
        else if (a.time !== b.time) assert.ok(b.time === null || (a.time !== null && a.time > b.time));
        else assert.ok(byteCompare(`${a.connectionId}/${a.recordId}`, `${b.connectionId}/${b.recordId}`) < 0);
      }
      assert.deepEqual(await run("message"), {
        hits: full,
        hasMore: false,
        recall: { complete: true, rankingScope: "all_matches" },
        unmatched: [],
      });
      const paged: StoredSearchHit[] = [];
      for (let offset = 0; ; offset += 7) {
        const page = await run("message", { limit: 7, offset });
        paged.push(...page.hits);
        assert.equal(page.hasMore, offset + 7 < 30);
        if (!page.hasMore) break;
      }
      assert.deepEqual(paged, full);
    });

    test("recall: complete within rankWindow, honest candidate window beyond it", async () => {
      const within = await run("message", { rankWindow: 30 });
      assert.deepEqual(within.recall, { complete: true, rankingScope: "all_matches" });
      // Every word counted and at most 4 windows of matches: all are still scored.
      assert.deepEqual((await run("message", { rankWindow: 8 })).recall, within.recall);
      const beyond = await run("message", { rankWindow: 5 });
      assert.equal(beyond.recall.complete, false);
      assert.equal(beyond.recall.rankingScope, "candidate_window");
      assert.equal(beyond.recall.matchedEstimate, 30);
      assert.equal(beyond.hits.length, 5);
      // Pages go on past the window: the next window ranks the next candidates.
      assert.equal(beyond.hasMore, true);
      assert.equal(beyond.nextOffset, 5);
      assert.equal(new Set(beyond.hits.map((h) => h.recordId)).size, 5);
    });

    test("paging past the candidate window reaches every match once, window by window", async () => {
      const every = oracle(parseSearchQuery("message"));
      assert.equal(every.length, 30);
      // rankWindow 5: every match counted, ranked in 6 windows; rankWindow 1: the word is past
      // the enumerate limit (20), so each window's offer of its newest matches grows.
      for (const rankWindow of [5, 1]) {
        const first = await run("message", { rankWindow });
        const seen: StoredSearchHit[] = [];
        let offset = 0;
        for (let pages = 0; pages < 100; pages++) {
          const page = await run("message", { rankWindow, limit: 3, offset });
          seen.push(...page.hits);
          assert.equal(page.recall.rankingScope, "candidate_window");
          if (!page.hasMore) break;
          offset = page.nextOffset ?? offset + page.hits.length;
        }
        assert.deepEqual(seen.slice(0, rankWindow), first.hits, `rankWindow ${rankWindow}: first window`);
        assert.deepEqual(ids(seen), every, `rankWindow ${rankWindow}: every match once`);
        // Within a window, score order.
        for (let i = 1; i < seen.length; i++) {
          if (Math.floor(i / rankWindow) === Math.floor((i - 1) / rankWindow))
            assert.ok(seen[i - 1].score >= seen[i].score);
        }
      }
    });

    test("deleted and replaced text is no longer found", async () => {
      await L.store.applyBatch(L.connA, "messages", [
        {
          op: "upsert",
          data: { message_id: "tmp1", subject: "quokka", body: "first", sent_at: "2024-01-01T00:00:00Z" },
        },
        {
          op: "upsert",
          data: { message_id: "tmp2", subject: "wombat", body: "second", sent_at: "2024-01-01T00:00:00Z" },
        },
      ]);
      assert.deepEqual(ids((await run("quokka")).hits), ["tmp1"]);
      await L.store.applyBatch(L.connA, "messages", [
        { op: "delete", data: { message_id: "tmp1" } },
        {
          op: "upsert",
          data: { message_id: "tmp2", subject: "numbat", body: "second", sent_at: "2024-01-01T00:00:00Z" },
        },
      ]);
      assert.deepEqual((await run("quokka")).hits, []);
      assert.deepEqual((await run("wombat")).hits, []);
      assert.deepEqual(ids((await run("numbat")).hits), ["tmp2"]);
    });

    test("FTS and SQL syntax in q is inert text, never an error", async () => {
      const hostile = [
        '"',
        "*",
        "NEAR(invoice budget)",
        "invoice OR lunch",
        "invoice AND",
        "-invoice",
        "subject:invoice",
        "(",
        ")",
        "^invoice",
        "{c0}:x",
        '""',
        "'",
        "; DROP TABLE records; --",
        "invoice NOT lunch",
        "c0 : invoice",
        "\\",
        "%_",
      ];
      for (const q of hostile) {
        const result = await run(q);
        assert.ok(Array.isArray(result.hits), q);
      }
      assert.deepEqual(ids((await run("subject:invoice")).hits), oracle(parseSearchQuery("subject invoice")));
      assert.deepEqual(ids((await run("(invoice)")).hits), oracle(parseSearchQuery("invoice")));
      // Only an exclusion: nothing to match.
      assert.deepEqual((await run("-invoice")).hits, []);
      assert.deepEqual((await run("")).hits, []);
    });
  });
}
