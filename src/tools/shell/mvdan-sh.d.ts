/** The GopherJS build of mvdan/sh ships no types; shell-commands.ts describes the parts it uses. */
declare module "mvdan-sh" {
  const sh: { syntax: unknown };
  export default sh;
}
