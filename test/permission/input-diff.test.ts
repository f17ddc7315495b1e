import { describe, expect, it } from "vitest";
import { inputChanges } from "../../src/permission/index.js";

describe("inputChanges: what an edit changed in a call's arguments", () => {
  it("names each changed, added and removed key by its JSON Pointer, nested ones included", () => {
    expect(
      inputChanges(
        '{"path":"a.txt","opts":{"force":false,"mode":"w"},"keep":1}',
        '{"path":"b.txt","opts":{"force":true},"keep":1,"extra":[1]}',
      ),
    ).toEqual([
      { path: "/path", before: "a.txt", after: "b.txt" },
      { path: "/opts/force", before: false, after: true },
      { path: "/opts/mode", before: "w" },
      { path: "/extra", after: [1] },
    ]);
  });

  it("compares arrays index by index and escapes ~ and / in keys (RFC 6901)", () => {
    expect(inputChanges('{"a/b":[1,2,3],"c~d":0}', '{"a/b":[1,5],"c~d":0}')).toEqual([
      { path: "/a~1b/1", before: 2, after: 5 },
      { path: "/a~1b/2", before: 3 },
    ]);
  });

  it("no change is no change, however the JSON is spaced; text that is not JSON is compared whole", () => {
    expect(inputChanges('{"a": 1}', '{"a":1}')).toEqual([]);
    expect(inputChanges("{oops", '{"a":1}')).toEqual([{ path: "", before: "{oops", after: '{"a":1}' }]);
    expect(inputChanges('{"a":1}', "[1]")).toEqual([{ path: "", before: { a: 1 }, after: [1] }]);
  });
});
