/**
 * The Service Bus SQL filter and rule action grammar (learn.microsoft.com "SQL filter syntax" and "SQL rule
 * action syntax"), in peggy's notation. Semantic checks that need a position (unknown system property, unknown
 * function, an escape that is not one character) call `error()` so they are reported where they occur.
 */
export const sqlGrammar = String.raw`
{{
  const SYS = ['MessageId', 'CorrelationId', 'To', 'ReplyTo', 'Label', 'Subject', 'SessionId', 'ReplyToSessionId',
    'ContentType', 'SequenceNumber', 'EnqueuedSequenceNumber', 'EnqueuedTimeUtc', 'ScheduledEnqueueTimeUtc',
    'ExpiresAtUtc', 'TimeToLive', 'DeliveryCount', 'Size', 'LockToken', 'LockedUntilUtc', 'DeadLetterSource',
    'PartitionKey', 'ViaPartitionKey', 'State'];
  function leftAssoc(head, tail, build) {
    return tail.reduce((l, [op, r]) => build(op, l, r), head);
  }
}}

Filter = _ p:Or _ { return p; }

Actions = _ head:Action tail:(_ ";"? _ a:Action { return a; })* _ ";"? _ { return [head, ...tail]; }

Action
  = SET _ p:Property _ "=" _ e:Expr { return { k: 'set', prop: p, e }; }
  / REMOVE _ p:Property { return { k: 'remove', prop: p }; }

Or = head:And tail:(_ OR _ r:And { return ['or', r]; })* { return leftAssoc(head, tail, (k, l, r) => ({ k, l, r })); }

And = head:Not tail:(_ AND _ r:Not { return ['and', r]; })* { return leftAssoc(head, tail, (k, l, r) => ({ k, l, r })); }

Not
  = NOT _ p:Not { return { k: 'not', p }; }
  / Predicate

Predicate
  = EXISTS _ "(" _ p:Property _ ")" { return { k: 'exists', prop: p }; }
  / p:Property _ IS _ n:(NOT _)? NULL { return { k: 'isnull', prop: p, not: n !== null }; }
  / e:Expr _ n:(NOT _)? LIKE _ pattern:String esc:(_ ESCAPE _ s:EscapeChar { return s; })? {
      return { k: 'like', e, pattern, escape: esc ?? undefined, not: n !== null };
    }
  / e:Expr _ n:(NOT _)? IN _ "(" _ head:Expr tail:(_ "," _ x:Expr { return x; })* _ ")" {
      return { k: 'in', e, list: [head, ...tail], not: n !== null };
    }
  / l:Expr _ op:CompareOp _ r:Expr { return { k: 'cmp', op, l, r }; }
  / "(" _ p:Or _ ")" { return p; }

CompareOp = "<>" { return '<>'; } / "!=" { return '<>'; } / ">=" / "<=" / "=" / ">" / "<"

EscapeChar = s:String {
    if (s.length !== 1) error('ESCAPE needs exactly one character, got ' + JSON.stringify(s));
    return s;
  }

Expr = head:Term tail:(_ op:$[+-] _ r:Term { return [op, r]; })* { return leftAssoc(head, tail, (op, l, r) => ({ k: 'arith', op, l, r })); }

Term = head:Unary tail:(_ op:$[*/%] _ r:Unary { return [op, r]; })* { return leftAssoc(head, tail, (op, l, r) => ({ k: 'arith', op, l, r })); }

Unary
  = "-" _ e:Unary { return { k: 'neg', e }; }
  / "+" _ e:Unary { return e; }
  / Primary

Primary
  = Constant
  / Function
  / "@" name:$IdentifierChars { return { k: 'param', name }; }
  / Property
  / "(" _ e:Expr _ ")" { return e; }

Function = name:$IdentifierChars _ "(" _ ")" {
    if (name.toLowerCase() !== 'newid') error('unknown function ' + name + '()');
    return { k: 'newid' };
  }

Constant
  = v:Number { return { k: 'const', v }; }
  / s:String { return { k: 'const', v: s }; }
  / TRUE { return { k: 'const', v: true }; }
  / FALSE { return { k: 'const', v: false }; }
  / NULL { return { k: 'const', v: null }; }

Number
  = text:$([0-9]+ ("." [0-9]*)? [eE] [+-]? [0-9]+ / "." [0-9]+ [eE] [+-]? [0-9]+) !IdChar { return Number(text); }
  / text:$([0-9]+ "." [0-9]* / "." [0-9]+) !IdChar { return Number(text); }
  / text:$[0-9]+ !IdChar { return BigInt(text); }

String = "'" chars:("''" { return "'"; } / [^'])* "'" { return chars.join(''); }

Property
  = scope:$("sys"i / "user"i) _ "." _ name:Name {
      if (scope.toLowerCase() === 'user') return { k: 'prop', scope: 'user', name };
      const canonical = SYS.find((s) => s.toLowerCase() === name.toLowerCase());
      if (canonical === undefined) error('unknown system property sys.' + name);
      return { k: 'prop', scope: 'sys', name: canonical === 'Subject' ? 'Label' : canonical };
    }
  / name:Name { return { k: 'prop', scope: 'user', name }; }

Name
  = "[" chars:("]]" { return ']'; } / [^\]])+ "]" { return chars.join(''); }
  / '"' chars:('""' { return '"'; } / [^"])+ '"' { return chars.join(''); }
  / !Keyword name:$IdentifierChars { return name; }

IdentifierChars = [A-Za-z_] IdChar*
IdChar = [A-Za-z0-9_]

Keyword = (AND / OR / NOT / IS / NULL / IN / LIKE / ESCAPE / EXISTS / TRUE / FALSE / SET / REMOVE)

AND = "AND"i !IdChar
OR = "OR"i !IdChar
NOT = "NOT"i !IdChar
IS = "IS"i !IdChar
NULL = "NULL"i !IdChar
IN = "IN"i !IdChar
LIKE = "LIKE"i !IdChar
ESCAPE = "ESCAPE"i !IdChar
EXISTS = "EXISTS"i !IdChar
TRUE = "TRUE"i !IdChar
FALSE = "FALSE"i !IdChar
SET = "SET"i !IdChar
REMOVE = "REMOVE"i !IdChar

_ "whitespace" = [ \t\r\n]*
`;
