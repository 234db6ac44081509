// The Graph page: draws /graph/data with the vendored Cytoscape.js; a click opens the memory.
(function () {
  "use strict";
  var box = document.getElementById("graph");
  if (!box || typeof cytoscape !== "function") { return; }
  var colours = { RelatedTo: "#3a9c9c", Updates: "#2454c5", Contradicts: "#b3261e", CausedBy: "#b7791f", PartOf: "#7c4dcc" };
  fetch(box.getAttribute("data-src"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
    .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
    .then(function (data) {
      var elements = [];
      data.nodes.forEach(function (n) {
        elements.push({ data: { id: n.id, label: n.label, type: n.type, status: n.status }, classes: n.id === data.center ? "center" : n.status });
      });
      data.edges.forEach(function (e) {
        elements.push({ data: { id: e.id, source: e.source, target: e.target, type: e.type, colour: colours[e.type] || "#888" }, classes: e.conflict ? "conflict" : "" });
      });
      var cy = cytoscape({
        container: box,
        elements: elements,
        minZoom: 0.2,
        maxZoom: 1.5,
        style: [
          { selector: "node", style: { "label": "data(label)", "font-size": 10, "text-wrap": "wrap", "text-max-width": 140, "background-color": "#2454c5", "color": "#1d2430", "width": 18, "height": 18 } },
          { selector: "node.center", style: { "background-color": "#14213d", "width": 26, "height": 26, "font-weight": "bold" } },
          { selector: "node.soft_deleted, node.superseded, node.retracted", style: { "background-color": "#9aa5b1" } },
          { selector: "edge", style: { "width": 2, "line-color": "data(colour)", "target-arrow-color": "data(colour)", "target-arrow-shape": "triangle", "curve-style": "bezier", "label": "data(type)", "font-size": 8, "color": "#5d6b7e" } },
          { selector: "edge.conflict", style: { "width": 5, "line-color": "#d00", "target-arrow-color": "#d00", "line-style": "dashed" } }
        ],
        layout: { name: "cose", animate: false, randomize: false, nodeRepulsion: 9000, idealEdgeLength: 110 }
      });
      var user = box.getAttribute("data-user");
      cy.on("tap", "node", function (evt) { window.location.href = "/memory/" + encodeURIComponent(evt.target.id()) + (user ? "?user=" + encodeURIComponent(user) : ""); });
      box.setAttribute("data-ready", "1");
      window.memvaultGraph = cy;
    })
    .catch(function (err) { box.textContent = "The graph could not be drawn: " + err.message; box.setAttribute("data-ready", "error"); });
})();
