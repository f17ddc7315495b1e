/**
 * Deterministic generated inputs for the RAG part: prose paragraphs from a fixed vocabulary (a
 * seeded PRNG, so every run sees the same bytes), rendered as text, Markdown, HTML, CSV and PDF,
 * and a fact set with known answers for retrieval quality.
 */

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "system data process model value result method energy signal network storage memory report " +
  "pressure valve reactor cooling pump sensor station engine turbine filter channel buffer cache " +
  "request latency budget schedule window factor threshold surface layer volume index record " +
  "the a of to in and for with on by from at is are was be it this that which under over between"
).split(" ");

/** A sentence of 8–20 words from the vocabulary. */
function sentence(random: () => number): string {
  const n = 8 + Math.floor(random() * 13);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  const text = words.join(" ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** A paragraph of 3–7 sentences. */
export function paragraph(random: () => number): string {
  const n = 3 + Math.floor(random() * 5);
  return Array.from({ length: n }, () => sentence(random)).join(" ");
}

/** One document's content: `sections` headings, each with `paragraphs` paragraphs. */
export interface DocumentShape {
  title: string;
  sections: Array<{ heading: string; paragraphs: string[] }>;
}

export function documentShape(seed: number, sections: number, paragraphs: number): DocumentShape {
  const random = prng(seed);
  return {
    title: `Document ${seed}`,
    sections: Array.from({ length: sections }, (_, s) => ({
      heading: `Part ${s + 1} ${WORDS[Math.floor(random() * 20)]}`,
      paragraphs: Array.from({ length: paragraphs }, () => paragraph(random)),
    })),
  };
}

export const render = {
  text: (d: DocumentShape) =>
    [d.title, ...d.sections.flatMap((s) => [s.heading, ...s.paragraphs])].join("\n\n"),
  markdown: (d: DocumentShape) =>
    [`# ${d.title}`, ...d.sections.flatMap((s) => [`## ${s.heading}`, ...s.paragraphs])].join("\n\n"),
  html: (d: DocumentShape) =>
    `<!doctype html><html><head><title>${d.title}</title><style>p{margin:0}</style></head><body><h1>${d.title}</h1>${d.sections
      .map((s) => `<h2>${s.heading}</h2>${s.paragraphs.map((p) => `<p>${p}</p>`).join("")}`)
      .join("")}</body></html>`,
  csv: (d: DocumentShape) =>
    [
      "section,row,note",
      ...d.sections.flatMap((s, i) =>
        s.paragraphs.flatMap((p, j) =>
          p.split(". ").map((line, k) => `${i + 1},${j * 10 + k},"${line.replaceAll('"', '""')}"`),
        ),
      ),
    ].join("\n"),
};

/** A PDF with one page per section (pdf-lib, resolved from the library's dev dependencies). */
export async function renderPdf(d: DocumentShape): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const section of d.sections) {
    const page = pdf.addPage([612, 792]);
    let y = 750;
    const lines = [section.heading, ...section.paragraphs.flatMap((p) => wrap(p, 95))];
    for (const line of lines) {
      if (y < 40) break;
      page.drawText(line, { x: 40, y, size: 9, font });
      y -= 12;
    }
  }
  return pdf.save();
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const SYLLABLES = "ka lo mi nu pe ra si to vu xe zo bri dra fle gro kli pra stu tri vlo".split(" ");
const COLORS = "red green blue amber violet grey white black silver golden".split(" ");
const CITIES = "Oslo Lima Perth Quito Dakar Hanoi Tunis Turin Leeds Porto Omsk Basel".split(" ");
const TEAMS = "north south east west harbor summit river forest desert canyon".split(" ");

export interface Fact {
  id: string;
  name: string;
  text: string;
}

/**
 * `count` short factual documents, each about one invented device with a distinct name, and one
 * question per document (rotating over four attributes) whose answer is only in that document.
 * Every document shares the template words, so only the name (and the value asked about) tells them apart.
 */
export function factSet(count: number): {
  facts: Fact[];
  questions: Array<{ question: string; answer: string }>;
} {
  const random = prng(42);
  const names = new Set<string>();
  while (names.size < count) {
    const parts = 2 + Math.floor(random() * 2);
    names.add(
      Array.from({ length: parts }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(""),
    );
  }
  const facts: Fact[] = [];
  const questions: Array<{ question: string; answer: string }> = [];
  [...names].forEach((name, i) => {
    const color = COLORS[i % COLORS.length]!;
    const city = CITIES[Math.floor(random() * CITIES.length)]!;
    const year = 1950 + Math.floor(random() * 70);
    const kelvin = 200 + Math.floor(random() * 600);
    const team = TEAMS[Math.floor(random() * TEAMS.length)]!;
    const id = `fact-${String(i).padStart(3, "0")}`;
    facts.push({
      id,
      name,
      text:
        `The ${name} is a ${color} pressure valve built in ${city} in ${year}. ` +
        `Its operating temperature is ${kelvin} kelvin. ` +
        `It is maintained by the ${team} team, which inspects the valve every spring.`,
    });
    const question = [
      `In which city was the ${name} built?`,
      `What is the operating temperature of the ${name}?`,
      `Which team maintains the ${name} valve?`,
      `What year was the ${name} built?`,
    ][i % 4]!;
    questions.push({ question, answer: id });
  });
  return { facts, questions };
}
