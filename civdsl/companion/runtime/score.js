// score.js: victory points and tie-breakers (runtime.score); the lines are generated (RULES.score).

function scoreOf(state) {
  const astLines = MODEL.SCORE_AST;
  const points = RULES.score.points.map(function (p) {
    return {label: p[0], points: number(p[1](state)), line: p[2]};
  });
  for (const p of points) {
    if (astLines.indexOf(p.line) >= 0) p.ast_space = number(state.fact("ast_position"));
  }
  const ties = RULES.score.tiebreaks.map(function (p) {
    return {label: p[0], value: number(p[1](state)), line: p[2]};
  });
  const known = points.filter(function (p) { return p.points !== null; }).map(function (p) { return p.points; });
  let total = null;
  if (known.length === points.length) {
    total = 0;
    for (const v of known) total = add(total, v);
  }
  return {complete: state.complete, points: points, total: number(total), tiebreaks: ties,
    missing_facts: state.missing.slice()};
}
