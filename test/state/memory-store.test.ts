import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/index.js";
import { type AgentState, emptyAgentState, InMemoryStateStore } from "../../src/state/index.js";
import { describeFamilyContract } from "./family-contract.js";
import { describeStoreContract, stateWith } from "./store-contract.js";

describeStoreContract("InMemoryStateStore", {
  open: async () => new InMemoryStateStore(),
  cleanup: async () => {},
});

describe("InMemoryStateStore loads", () => {
  it("a state of another schema version (saved through a cast) goes through the schema check, which names the field", async () => {
    const store = new InMemoryStateStore();
    const forged = { ...emptyAgentState("s"), schemaVersion: 99 } as unknown as AgentState;
    await store.save("s", forged, { expectedVersion: 0 });
    const load = store.load("s");
    await expect(load).rejects.toThrow(ValidationError);
    await expect(load).rejects.toMatchObject({ path: "schemaVersion" });
  });

  it("a current-version state comes back equal to what was saved, as its own copy", async () => {
    const store = new InMemoryStateStore();
    const saved = stateWith("s", ["hello", "world"]);
    await store.save("s", saved, { expectedVersion: 0 });
    const loaded = (await store.load("s"))!.state;
    expect(loaded).toEqual(saved);
    expect(loaded).not.toBe(saved);
    expect(loaded.context[0]).not.toBe(saved.context[0]);
  });
});

describeFamilyContract({ name: "memory", url: () => "memory:", shared: false });
