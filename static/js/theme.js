// Light or dark (static/css/site.css holds both palettes). Loaded in <head>, after the stylesheet and
// before the body, so a phone set to light never sees a dark page flash first: it puts
// data-theme="light" or "dark" on <html> at once. The theme is the phone's own setting
// (prefers-color-scheme) unless the person chose one with the header's switch (Auto, Light, Dark),
// remembered on this phone (localStorage). The browser's own colours
// (color-scheme: form controls, scrollbars) and its bar (theme-color) follow.
(function () {
  "use strict";

  var STORAGE_KEY = "bunco-theme";
  var CHOICES = ["auto", "light", "dark"];
  var root = document.documentElement;
  var phoneIsLight = window.matchMedia ? window.matchMedia("(prefers-color-scheme: light)") : null;

  function chosen() {
    try {
      var choice = window.localStorage.getItem(STORAGE_KEY);
      return CHOICES.indexOf(choice) >= 0 ? choice : "auto";
    } catch (refused) {
      return "auto"; // storage blocked (a private window, a policy): the phone's setting
    }
  }

  function remember(choice) {
    try {
      if (choice === "auto") window.localStorage.removeItem(STORAGE_KEY);
      else window.localStorage.setItem(STORAGE_KEY, choice);
    } catch (refused) {
      /* the choice holds for this page only */
    }
  }

  function setMeta(name, content) {
    var meta = document.querySelector('meta[name="' + name + '"]');
    if (meta) meta.setAttribute("content", content);
  }

  function apply() {
    var choice = chosen();
    var theme = choice === "auto" ? (phoneIsLight && phoneIsLight.matches ? "light" : "dark") : choice;
    root.setAttribute("data-theme", theme);
    setMeta("color-scheme", theme);
    // The palette's own background (the stylesheet is loaded: a script after it waits for it).
    var background = window.getComputedStyle(root).getPropertyValue("--bg").trim();
    if (background) setMeta("theme-color", background);
    showOnSwitch(choice, theme);
  }

  function showOnSwitch(choice, theme) {
    var button = document.querySelector("[data-theme-switch]");
    if (!button) return;
    var label = button.querySelector("[data-theme-label]");
    // The words come from the catalog, which base.html loads after this script: the switch exists
    // (and is drawn) only once the page is parsed, when the catalog is there.
    var labels = { auto: pgettext("theme", "Auto"), light: pgettext("theme", "Light"), dark: pgettext("theme", "Dark") };
    if (label) label.textContent = labels[choice];
    button.setAttribute("data-choice", choice);
    button.title = choice === "auto"
      ? interpolate(gettext("Follows this phone's setting (%(theme)s now)"), { theme: labels[theme].toLowerCase() }, true)
      : "";
  }

  // Auto, then the other theme than the phone's, then the phone's own (kept even if the phone
  // changes), then Auto again: the first tap always changes what the page looks like.
  function nextChoice(choice) {
    var phones = phoneIsLight && phoneIsLight.matches ? "light" : "dark";
    var other = phones === "light" ? "dark" : "light";
    if (choice === "auto") return other;
    if (choice === other) return phones;
    return "auto";
  }

  function setUpSwitch() {
    var button = document.querySelector("[data-theme-switch]");
    if (!button) return;
    button.hidden = false; // without this script it could do nothing, so it starts hidden
    button.addEventListener("click", function () {
      remember(nextChoice(chosen()));
      apply();
    });
    apply();
  }

  apply();
  // The phone's setting changing while the page is open (sunset, a tap in its settings).
  if (phoneIsLight) {
    if (phoneIsLight.addEventListener) phoneIsLight.addEventListener("change", apply);
    else if (phoneIsLight.addListener) phoneIsLight.addListener(apply);
  }
  // A choice made in another tab of this site.
  window.addEventListener("storage", function (event) {
    if (event.key === STORAGE_KEY || event.key === null) apply();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUpSwitch);
  else setUpSwitch();
})();
