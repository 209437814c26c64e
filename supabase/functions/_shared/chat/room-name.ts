// A room's name as the model proposed it, made fit for a chat list: the first line only, without
// markdown, quotes or a "Name:" label, spaces collapsed, and at most MAX_ROOM_NAME_CHARS characters
// (cut at a word when one ends late enough). Empty when nothing is left.

export const MAX_ROOM_NAME_CHARS = 60;

const MARKDOWN = /[*_`#>~]|\[|\]\([^)]*\)|\]/g;
const QUOTES = /["'“”‘’«»„‚]/g;
const LABEL = /^(chat |room )?(name|title)\s*:\s*/i;

export function cleanRoomName(proposed: string): string {
  const firstLine = proposed.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== "") ?? "";
  const plain = firstLine.replace(MARKDOWN, "").replace(/^\s*([-+]|\d+[.)])\s+/, "").replace(QUOTES, "").trim()
    .replace(LABEL, "").replace(/\s+/g, " ").trim().replace(/[.,;:!-]+$/, "").trim();
  return capped(plain);
}

/** `name` cut to MAX_ROOM_NAME_CHARS characters (code points), at the last space past half of them. */
export function capped(name: string): string {
  const chars = [...name];
  if (chars.length <= MAX_ROOM_NAME_CHARS) return name;
  const cut = chars.slice(0, MAX_ROOM_NAME_CHARS).join("");
  const space = cut.lastIndexOf(" ");
  return (space >= MAX_ROOM_NAME_CHARS / 2 ? cut.slice(0, space) : cut).trim();
}
