// Turns a title into a URL slug: lower case, words joined by single dashes.
export function slugify(title) {
  return title
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9]/g, "-");
}
