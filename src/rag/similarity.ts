/** Cosine similarity of two equal-length vectors; 0 when either is all zeros. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}

/** Lower-cased word tokens (letters and digits in any script), for keyword search. */
export function keywordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Okapi BM25 scores of `query` against each document's tokens (k1 = 1.2, b = 0.75); a document
 * sharing no term with the query scores 0.
 */
export function bm25Scores(query: string, documents: readonly string[][]): number[] {
  const terms = [...new Set(keywordTokens(query))];
  const n = documents.length;
  if (n === 0 || terms.length === 0) return documents.map(() => 0);
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const frequencies = documents.map((tokens) => {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return counts;
  });
  const documentFrequency = new Map(terms.map((t) => [t, frequencies.filter((f) => f.has(t)).length]));
  return frequencies.map((counts, i) => {
    let score = 0;
    const length = (documents[i] as string[]).length;
    for (const term of terms) {
      const tf = counts.get(term) ?? 0;
      if (tf === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * length) / averageLength));
    }
    return score;
  });
}
