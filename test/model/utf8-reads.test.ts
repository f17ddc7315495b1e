import { describe, expect, it } from "vitest";
import { Utf8Reads } from "../../src/model/transport/utf8-reads.js";

/** `bytes` cut at `cuts`, each piece decoded as one read, joined. */
function decodeCut(bytes: Uint8Array, cuts: number[]): string {
  const reads = new Utf8Reads();
  let text = "";
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    text += reads.decode(bytes.subarray(at, cut));
    at = cut;
  }
  return text;
}

describe("Utf8Reads", () => {
  const body = "\uFEFFdata: é日本🙂\n\uFEFFx ü\n";
  const bytes = new TextEncoder().encode(body);
  const want = body.slice(1); // the leading BOM dropped, the later U+FEFF kept

  it("decodes every cut of the bytes like one streaming TextDecoder, characters cut anywhere", () => {
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) expect(decodeCut(bytes, [a, b])).toBe(want);
    }
  });

  it("agrees with a streaming TextDecoder on every single-byte read", () => {
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    const decoder = new TextDecoder();
    const reference = [...bytes].map((b) => decoder.decode(Uint8Array.of(b), { stream: true })).join("");
    expect(decodeCut(bytes, cuts)).toBe(reference);
  });

  it("replaces invalid bytes as TextDecoder does", () => {
    const bad = Uint8Array.of(0x61, 0xff, 0x62, 0xe6, 0x97, 0x0a);
    expect(decodeCut(bad, [2])).toBe(new TextDecoder().decode(bad));
    expect(decodeCut(bad, [4])).toBe(new TextDecoder().decode(bad));
  });
});
