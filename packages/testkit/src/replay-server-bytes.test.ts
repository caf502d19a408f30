// The replay server serves what was recorded, byte for byte, split where a parser breaks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createReplayServer, exchangeSeed, isTrickyOffset, readReplayFixture, replaySplitOffsets, type ReplayServer } from "./replay.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const dir = mkdtempSync(join(tmpdir(), "yoke-replay-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const encoder = new TextEncoder();
const post = (url: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

/** Every read the client got, in order, and whether the body ended in an error. */
async function reads(response: Response): Promise<{ chunks: Uint8Array[]; error: unknown }> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks, error: undefined };
      chunks.push(value);
    }
  } catch (error) {
    return { chunks, error };
  }
}
const joined = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks);
const boundaries = (chunks: readonly Uint8Array[]) => {
  let offset = 0;
  return chunks.slice(0, -1).map((chunk) => (offset += chunk.length));
};

// A body written the way real servers write them, not the way JSON.stringify would: spaces
// before colons, tabs, keys whose order JSON.parse changes ("2" before "1"), escaped unicode,
// a number JSON cannot keep exactly, `1.0`, and a solidus escape.
const UNUSUAL_BODY = '{ "2" : "b",\t"1":"a", "message" : "caf\\u00e9 \\ud83d\\ude42 \\/ ok",\r\n "id": 12345678901234567890, "ratio": 1.0 }';

describe("the replay server serves recorded bytes verbatim", () => {
  it("serves a .json fixture's body as the exact bytes of its value in the file", async () => {
    const file = `{\n  "status": 400,\n  "headers": { "x-request-id": "req_1" },\n  "body": ${UNUSUAL_BODY}\n}\n`;
    writeFileSync(join(dir, "unusual.json"), file);
    server = await createReplayServer([readReplayFixture(dir, "unusual.json")]);
    const response = await post(server.url);
    expect([response.status, response.headers.get("content-type"), response.headers.get("x-request-id")]).toEqual([400, "application/json", "req_1"]);
    const received = Buffer.from(await response.arrayBuffer()).toString("utf8");
    expect(received).toBe(UNUSUAL_BODY);
  });

  it("serves rawBody and .sse fixtures byte for byte, even bytes that are not UTF-8", async () => {
    const recorded = Buffer.concat([Buffer.from('\ufeffdata: {"t":"\u00e9"}\r\n\r\ndata: '), Buffer.from([0xff, 0xc3]), Buffer.from("\n\n")]);
    writeFileSync(join(dir, "odd.sse"), recorded);
    server = await createReplayServer([readReplayFixture(dir, "odd.sse"), { status: 502, headers: { "content-type": "text/html" }, rawBody: recorded }]);
    const stream = await post(server.url);
    expect(Buffer.from(await stream.arrayBuffer())).toEqual(recorded);
    const html = await post(server.url);
    expect([html.status, html.headers.get("content-type"), html.headers.get("content-length")]).toEqual([502, "text/html", String(recorded.length)]);
    expect(Buffer.from(await html.arrayBuffer())).toEqual(recorded);
  });

  it("still serializes a `body` value given in code", async () => {
    server = await createReplayServer([{ body: { b: 1, a: [true] } }]);
    expect(await (await post(server.url)).text()).toBe('{"b":1,"a":[true]}');
  });
});

// Events as the SDKs parse them: text decoded as a stream, events separated by a blank line.
function parseSse(chunks: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let text = "";
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  text += decoder.decode();
  return text.split("\n\n").filter((event) => event.length > 0);
}

describe("the replay server splits bodies into separately flushed writes", () => {
  const events = [
    'event: delta\ndata: {"text":"caf\u00e9 \u65e5\u672c \ud83d\ude42"}',
    'event: delta\ndata: {"text":"\u00fcber \u00bd"}',
    "event: done\ndata: {}",
  ];
  const stream = encoder.encode(`${events.join("\n\n")}\n\n`.repeat(4));
  const insideCharacter = (bytes: Uint8Array, offset: number) => (bytes[offset]! & 0xc0) === 0x80;
  const betweenNewlines = (bytes: Uint8Array, offset: number) => bytes[offset - 1] === 0x0a && bytes[offset] === 0x0a;

  it("draws the same offsets from the same seed, different ones from others, always inside the body", () => {
    const patterns = [1, 2, 3, 4].map((seed) => replaySplitOffsets(stream, seed));
    expect(replaySplitOffsets(stream, 3)).toEqual(patterns[2]);
    expect(new Set(patterns.map((offsets) => offsets.join())).size).toBe(4);
    for (const offsets of patterns) {
      expect(offsets.length).toBeGreaterThan(0);
      expect(offsets.every((offset, index) => offset > 0 && offset < stream.length && (index === 0 || offset > offsets[index - 1]!))).toBe(true);
    }
    expect(exchangeSeed(3, 0)).not.toBe(exchangeSeed(3, 1));
    expect(replaySplitOffsets(new Uint8Array(), 3)).toEqual([]);
  });

  it("with a seed, the client reads the body in pieces cut at the seed's offsets, and gets every byte", async () => {
    server = await createReplayServer([{ sse: stream }, { rawBody: stream }], { seed: 7 });
    for (const index of [0, 1]) {
      const { chunks, error } = await reads(await post(server.url));
      expect(error).toBeUndefined();
      expect(joined(chunks)).toEqual(Buffer.from(stream));
      const splitAt = server.requests[index]!.splitAt;
      expect(splitAt).toEqual(replaySplitOffsets(stream, exchangeSeed(7, index)));
      // Each write is flushed before the next: the client sees them as separate reads (the
      // HTTP client may merge the first with the headers it was still reading).
      const seen = boundaries(chunks);
      expect(seen.every((offset) => splitAt.includes(offset))).toBe(true);
      expect(seen.length).toBeGreaterThanOrEqual(splitAt.length / 2);
    }
  });

  it("for some seed, cuts inside multi-byte characters and between the two newlines of a separator, and the client reassembles every event", async () => {
    const tricky = (seed: number) => {
      const offsets = replaySplitOffsets(stream, seed).slice(1);
      return [offsets.filter((offset) => insideCharacter(stream, offset)).length, offsets.filter((offset) => betweenNewlines(stream, offset)).length];
    };
    const seed = [...Array(50).keys()].find((candidate) => tricky(exchangeSeed(candidate, 0)).every((count) => count >= 3));
    expect(seed).toBeDefined();
    server = await createReplayServer([{ sse: stream }], { seed: seed! });
    const { chunks } = await reads(await post(server.url));
    const seen = boundaries(chunks);
    expect(
      seen.some((offset) => insideCharacter(stream, offset)),
      `seed ${seed}: a read ends inside a character`,
    ).toBe(true);
    expect(
      seen.some((offset) => betweenNewlines(stream, offset)),
      `seed ${seed}: a read ends between \\n and \\n`,
    ).toBe(true);
    expect(() => chunks.map((chunk) => new TextDecoder("utf-8", { fatal: true }).decode(chunk))).toThrow();
    expect(parseSse(chunks)).toEqual([...events, ...events, ...events, ...events]);
  });

  it("marks which offsets are the tricky ones", () => {
    const bytes = encoder.encode("a\u00e9\n\n\r\n\r\n");
    expect([...bytes.keys()].slice(1).filter((offset) => isTrickyOffset(bytes, offset))).toEqual([2, 4, 5, 6, 7, 8]);
  });

  it("splits at explicit offsets with splitAt, whatever the seed", async () => {
    server = await createReplayServer([{ sse: "data: 1\n\ndata: 2\n\n", splitAt: [9, 8, 0, 99, 8] }], { seed: 1 });
    const { chunks } = await reads(await post(server.url));
    expect(server.requests[0]!.splitAt).toEqual([8, 9]);
    expect(Buffer.concat(chunks).toString()).toBe("data: 1\n\ndata: 2\n\n");
  });
});

describe("the replay server destroys the socket after the body when asked", () => {
  const stream = encoder.encode('data: {"text":"\u00e9t\u00e9"}\n\ndata: {"text":"fin"}\n\n');

  it("destroyAfter: N sends exactly N bytes, then the client's read fails with a transport error", async () => {
    server = await createReplayServer([
      { sse: stream, destroyAfter: 15 },
      { rawBody: stream, destroyAfter: 15, splitAt: [3] },
    ]);
    for (const index of [0, 1]) {
      const { chunks, error } = await reads(await post(server.url));
      expect(joined(chunks)).toEqual(Buffer.from(stream.subarray(0, 15)));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("terminated");
      expect(server.requests[index]!.clientAborted).toBe(false);
    }
  });

  it('destroyAfter: "body" sends the whole stream, then destroys the socket: the client still fails', async () => {
    server = await createReplayServer(
      [
        { sse: stream, destroyAfter: "body" },
        { sse: stream, cut: true },
      ],
      { seed: 2 },
    );
    for (const _ of [0, 1]) {
      const { chunks, error } = await reads(await post(server.url));
      expect(joined(chunks)).toEqual(Buffer.from(stream));
      expect((error as Error).message).toBe("terminated");
    }
  });

  it("keeps the fixture bytes when only the ending is overridden, and replaces them with an overriding body", () => {
    writeFileSync(join(dir, "cut.sse"), stream);
    writeFileSync(join(dir, "ok.json"), '{ "status": 200, "body": {"a": 1} }');
    expect(readReplayFixture(dir, "cut.sse", { destroyAfter: 5 })).toEqual({ sse: new Uint8Array(readFileSync(join(dir, "cut.sse"))), destroyAfter: 5 });
    expect(readReplayFixture(dir, "ok.json", { body: { b: 2 } })).toEqual({ status: 200, body: { b: 2 } });
    expect(readReplayFixture(dir, "ok.json", { rawBody: "x" })).toEqual({ status: 200, rawBody: "x" });
  });
});
