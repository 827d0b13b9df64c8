export { answerText, expandTabs, loadMarkdown, renderedTail } from "./markdown.ts";
export { markdownCut } from "./markdown-blocks.ts";
