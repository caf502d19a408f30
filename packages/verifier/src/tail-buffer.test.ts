import { describe, expect, it } from "vitest";
import { TailBuffer, utf8Whole } from "./tail-buffer.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("TailBuffer", () => {
  it("holds at most its capacity however much is pushed, and the last bytes in order", () => {
    const buffer = new TailBuffer(8);
    for (let index = 0; index < 1_000; index += 1) buffer.push(bytes(`line ${index}\n`));
    expect(buffer.retainedBytes).toBe(8);
    expect(new TextDecoder().decode(buffer.bytes())).toBe("ine 999\n");
    expect(buffer.totalBytes).toBe([...Array(1_000).keys()].reduce((sum, index) => sum + `line ${index}\n`.length, 0));
  });

  it("a chunk larger than the ring keeps its last bytes; chunks that wrap keep their order", () => {
    const buffer = new TailBuffer(5);
    buffer.push(bytes("abc"));
    buffer.push(bytes("defghijk"));
    expect(new TextDecoder().decode(buffer.bytes())).toBe("ghijk");
    buffer.push(bytes("lm"));
    expect(new TextDecoder().decode(buffer.bytes())).toBe("ijklm");
    expect(buffer.tail()).toEqual({ text: "ijklm", truncatedBytes: 8 });
  });

  it("before it fills, keeps everything", () => {
    const buffer = new TailBuffer(64);
    buffer.push(bytes("ab"));
    buffer.push(bytes("cd"));
    expect(buffer.tail()).toEqual({ text: "abcd", truncatedBytes: 0 });
  });
});

describe("utf8Whole", () => {
  it("drops a partial code point at the start and at the end, keeps whole ones", () => {
    const euro = bytes("€"); // 3 bytes
    expect(utf8Whole(Uint8Array.of(euro[1]!, euro[2]!, 0x61))).toEqual(Uint8Array.of(0x61));
    expect(utf8Whole(Uint8Array.of(0x61, euro[0]!, euro[1]!))).toEqual(Uint8Array.of(0x61));
    expect(utf8Whole(bytes("a€😀"))).toEqual(bytes("a€😀"));
    expect(utf8Whole(bytes("😀").subarray(0, 3))).toEqual(new Uint8Array(0));
  });
});
