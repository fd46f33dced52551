// Two helpers of every module: an element by its id, and a pause.
export const $ = (id) => document.getElementById(id);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A button (not a form's submit) of class `className`.
export function newButton(className) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  return button;
}

// The browser's storage keys of the page (localStorage; game, draft: sessionStorage).
export const STORE = {lang: "aluette.lang", display: "aluette.display", pace: "aluette.pace", game: "aluette.game",
                      draft: "aluette.draft",
                      matches: "aluette.matches", table: "aluette.table"};
