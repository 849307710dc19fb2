// Turns interact `node` code into something a persistent vm context can run again and
// again, REPL style: top-level declarations become context globals (so later calls see
// them and may redeclare them), top-level await works, and the value of the last
// expression statement is returned.
import { parse, type Node, type Pattern, type Program } from 'acorn';

export interface PreparedCode {
  /** `var a, b;` run first, so declared names live on the context's global object. */
  prelude: string;
  /** An async IIFE returning the last expression's value. */
  body: string;
}

function patternNames(p: Pattern | null | undefined, out: string[]): void {
  if (!p) return;
  switch (p.type) {
    case 'Identifier': out.push(p.name); return;
    case 'ObjectPattern':
      for (const prop of p.properties) patternNames(prop.type === 'RestElement' ? prop.argument : prop.value, out);
      return;
    case 'ArrayPattern': for (const el of p.elements) patternNames(el, out); return;
    case 'RestElement': patternNames(p.argument, out); return;
    case 'AssignmentPattern': patternNames(p.left, out); return;
    default: return;
  }
}

/** Throws a SyntaxError (with the acorn position) when the code does not parse. */
export function prepareNodeCode(code: string): PreparedCode {
  const ast: Program = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowHashBang: true });
  const src = (n: Node) => code.slice(n.start, n.end);
  const names: string[] = [];
  const hoisted: string[] = [];
  const parts: string[] = [];
  ast.body.forEach((stmt, i) => {
    const last = i === ast.body.length - 1;
    if (stmt.type === 'VariableDeclaration') {
      const assigns: string[] = [];
      for (const d of stmt.declarations) {
        patternNames(d.id, names);
        if (d.init) assigns.push(`(${src(d.id)} = ${src(d.init)})`);
      }
      parts.push(assigns.length ? `void (${assigns.join(', ')});` : ';');
    } else if (stmt.type === 'FunctionDeclaration' && stmt.id) {
      names.push(stmt.id.name);
      hoisted.push(`${stmt.id.name} = ${src(stmt)};`);
    } else if (stmt.type === 'ClassDeclaration' && stmt.id) {
      names.push(stmt.id.name);
      parts.push(`${stmt.id.name} = ${src(stmt)};`);
    } else if (last && stmt.type === 'ExpressionStatement') {
      parts.push(`return (${src(stmt.expression)}\n);`);
    } else {
      parts.push(src(stmt));
    }
  });
  const unique = [...new Set(names)];
  return {
    prelude: unique.length ? `var ${unique.join(', ')};` : '',
    body: `(async () => {\n${hoisted.join('\n')}\n${parts.join('\n')}\n})()`,
  };
}
