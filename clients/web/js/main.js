// Every page is this one document; the path says which module draws it. The title says what the
// tab is ("Replay · Justicar") until the page names more (the player's: "Sam · The alley · Justicar").
const PAGES = {
  "/": ["join.js", "Join a scene"],
  "/play": ["play.js", "Player"],
  "/st": ["console.js", "Storyteller"],
  "/replay": ["replay.js", "Replay"],
};
const [module, title] = PAGES[location.pathname] || PAGES["/"];
document.title = `${title} · Justicar`;
import(`./${module}`);
