import type { SearchHit } from "./types.js";

/** The constant of reciprocal rank fusion (Cormack et al. 2009): score = sum of 1 / (k + rank). */
export const RRF_K = 60;

export const hitKey = (hit: SearchHit) => `${hit.chunk.documentId}\u0000${hit.chunk.chunkIndex}`;

/** A fused hit, with the scores of the lists it came from. */
export interface FusedHit extends SearchHit {
  vectorScore?: number;
  keywordScore?: number;
}

/** Fuses a vector ranking and a keyword ranking by reciprocal rank; best first. */
export function reciprocalRankFusion(
  vector: readonly SearchHit[],
  keyword: readonly SearchHit[],
  k = RRF_K,
): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  const add = (hits: readonly SearchHit[], field: "vectorScore" | "keywordScore") => {
    hits.forEach((hit, rank) => {
      const key = hitKey(hit);
      const entry = fused.get(key) ?? { chunk: hit.chunk, score: 0 };
      entry.score += 1 / (k + rank + 1);
      entry[field] = hit.score;
      fused.set(key, entry);
    });
  };
  add(vector, "vectorScore");
  add(keyword, "keywordScore");
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
