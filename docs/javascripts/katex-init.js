// Render the math that pymdownx.arithmatex (generic: true) leaves in .arithmatex elements.
// Subscribing to Material's document$ re-renders after every instant-navigation page change,
// not only on the first load.
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    ignoredClasses: ["highlight", "md-code"],
    throwOnError: false,
  });
});
