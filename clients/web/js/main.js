// Every page is this one document; the path says which module draws it.
const PAGES = {
  "/": ["join.js", "Join a scene"],
  "/play": ["play.js", "Player"],
  "/st": ["console.js", "Storyteller"],
  "/replay": ["replay.js", "Replay"],
};
const [module, title] = PAGES[location.pathname] || PAGES["/"];
document.title = `Justicar · ${title}`;
import(`./${module}`);
