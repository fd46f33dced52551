// The page's words: the server's catalog of the page's language (messages,
// card names and faces, signs, direction), numbers and lists in that
// language, and the seats as the reader names them. language.js loads the
// catalog; nothing here asks the server.
import {get} from "./state.js";

let catalog = {messages: {}, cards: [], faces: [], dir: "ltr", lang: "en"};

export function setCatalog(loaded) { catalog = loaded; }
export function lang() { return catalog.lang; }
export function dir() { return catalog.dir; }
export function faces() { return catalog.faces; }
export function signs() { return catalog.signs || []; }

export function t(message, fields) {
  let text = catalog.messages[message] || message;
  if (fields) text = text.replace(/\{(\w+)\}/g, (m, name) => (name in fields ? fields[name] : m));
  return text;
}
// A spectator sits nowhere: the seats are the compass's, the sides south and
// north against west and east.
export function seatName(seat) {
  const view = get("view");
  if (view && view.spectator) return [t("South"), t("West"), t("North"), t("East")][seat];
  return [t("You"), t("West"), t("Partner"), t("East")][seat];
}
// A seat labelled once: its place from the reader, and the name of the
// person there if the host gave one ("Partner · Bob"; an AI: "Partner").
function personName(seat) {
  const view = get("view");
  return (view && view.people && view.people[String(seat)]) || "";
}
export function seatLabel(seat) {
  const name = personName(seat);
  return name ? `${seatName(seat)} · ${name}` : seatName(seat);
}
// A seat in a sentence: the person's name, else the place ("Waiting for Bob…").
export function who(seat) { return personName(seat) || seatName(seat); }
export function sideNames() {
  const view = get("view");
  return view && view.spectator ? [t("South and north"), t("West and east")] : [t("You and partner"), t("Opponents")];
}
export function cardName(card) { return catalog.cards[card] || String(card); }
// A sign's words (the server's catalog, by sign id 0-9; 0: none) and picture.
function signOf(sign) { return (catalog.signs && catalog.signs[sign]) || {key: "none", gesture: String(sign), card: ""}; }
export function signText(sign) {
  const s = signOf(sign);
  return s.card ? t("{gesture} ({card})", {gesture: s.gesture, card: s.card}) : s.gesture;
}
export function signIcon(sign) { return window.AluetteSigns.icon(signOf(sign).key); }
// A seen sign in a sentence: yours, your partner's, or an opponent's you caught.
export function seenSign(s) {
  if (s.caught) return t("You caught a sign from {seat}: {sign}.", {seat: who(s.seat), sign: signText(s.sign)});
  if (s.seat === 0 && !get("view").spectator) return s.sign ? t("You sign: {sign}.", {sign: signText(s.sign)}) : t("You make no sign.");
  return s.sign ? t("{seat} signs: {sign}.", {seat: who(s.seat), sign: signText(s.sign)}) : t("{seat} makes no sign.", {seat: who(s.seat)});
}
// Numbers in the page's language (Intl), in the digits of the rest of the
// page; a signed number is isolated left-to-right (LRI … PDI, what <bdi
// dir="ltr"> does), so its sign stays on its left in right-to-left text.
export function number(x, {signed = false, digits = 0} = {}) {
  const text = new Intl.NumberFormat(`${catalog.lang}-u-nu-latn`, {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
    signDisplay: signed ? "exceptZero" : "auto"}).format(x);
  return signed ? `\u2066${text}\u2069` : text;
}
// A list in the page's language ("East and West"), Intl's.
export function list(items) { return new Intl.ListFormat(catalog.lang, {type: "conjunction"}).format(items); }
