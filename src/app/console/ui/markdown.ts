import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";
import { h } from "./dom.js";
import { imageNode } from "./remote-image.js";
import { safeUrl } from "./safe-url.js";

const LANGUAGES = { bash, css, diff, go, java, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

/**
 * Markdown for model output: CommonMark + tables + autolinks, raw HTML off (it is shown as text),
 * links and images only through `safeUrl`, code highlighted by highlight.js. Only local images
 * (same origin, data:, blob:) show inline; any other is a link that loads nothing until clicked.
 */
const markdown = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, lang) {
    const name = lang && hljs.getLanguage(lang) ? lang : undefined;
    if (!name) return "";
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  },
});
markdown.validateLink = (url) => safeUrl(url, { image: /^data:image\//i.test(url) }) !== undefined;

/** Tags and attributes kept after rendering: everything else is removed (defence in depth). */
const TAGS = new Set(
  "a p br hr em strong s del code pre blockquote ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tr th td img span".split(
    " ",
  ),
);
const ATTRIBUTES: Record<string, Set<string>> = {
  a: new Set(["href", "title"]),
  img: new Set(["src", "alt", "title"]),
  ol: new Set(["start"]),
  code: new Set(["class"]),
  span: new Set(["class"]),
};

function sanitize(root: ParentNode): void {
  for (const node of [...root.querySelectorAll("*")]) {
    const tag = node.tagName.toLowerCase();
    if (!TAGS.has(tag)) {
      node.replaceWith(document.createTextNode(node.textContent ?? ""));
      continue;
    }
    const allowed = ATTRIBUTES[tag];
    for (const attribute of [...node.attributes]) {
      if (!allowed?.has(attribute.name)) node.removeAttribute(attribute.name);
    }
    if (tag === "a") {
      const href = safeUrl(node.getAttribute("href") ?? "");
      if (href === undefined) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
    if (tag === "img") {
      const alt = node.getAttribute("alt") ?? "";
      const shown = imageNode(node.getAttribute("src") ?? "", alt, { loading: "lazy" });
      node.replaceWith(shown ?? document.createTextNode(alt || "image"));
    }
  }
}

/** Adds a copy button to every code block. */
function addCopyButtons(root: Element): void {
  for (const pre of root.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    const button = h("button", { type: "button", class: "copy", "aria-label": "Copy code" }, "Copy");
    button.addEventListener("click", () => {
      void navigator.clipboard?.writeText(code?.textContent ?? pre.textContent ?? "").then(
        () => {
          button.textContent = "Copied";
        },
        () => {
          button.textContent = "Copy failed";
        },
      );
    });
    const wrap = h("div", { class: "code-block" });
    pre.replaceWith(wrap);
    wrap.append(button, pre);
  }
}

/** Renders Markdown into `target` (replacing its children), sanitised, with copy buttons on code. */
export function renderMarkdown(target: Element, text: string): void {
  const template = document.createElement("template");
  template.innerHTML = markdown.render(text);
  // Sanitised while inert (a template's content loads nothing): an <img> moved into the page
  // before its check would already have been requested.
  sanitize(template.content);
  const holder = document.createElement("div");
  holder.append(template.content);
  addCopyButtons(holder);
  target.replaceChildren(...holder.childNodes);
}
