# jq compatibility definitions for `get`, loaded after jaq's core, std and json
# definitions (a later definition shadows an earlier one of the same name and
# arity, and shadows a native filter). `_compat_*` names are private helpers;
# `_compat_jaq_X` keeps jaq's own X for an override that still needs it.

# A value as jq shows it in error messages: JSON, cut to 11 bytes + "...".
def _compat_show: tojson | if length > 14 then .[:11] + "..." end;

# Aliases of jaq's own filters, taken before they are shadowed below.
def _compat_jaq_has($k): has($k);
def _compat_jaq_ltrimstr($x): ltrimstr($x);
def _compat_jaq_rtrimstr($x): rtrimstr($x);
def _compat_jaq_strftime($f): strftime($f);
def _compat_jaq_strflocaltime($f): strflocaltime($f);
def _compat_jaq_mktime: mktime;

## Paths

# jq's setpath pads arrays with null (`null | setpath([2]; 1)` is [null,null,1]),
# builds objects/arrays from null and splices slice keys; jaq's is `getpath(p) = x`,
# which fails on indices past the end.
def setpath($p; $x): _compat_setpath($p; $x);
# jq's delpaths ignores indices out of range, deletes slices and checks that it
# gets an array of paths; jaq's deletes through `|= empty`, which fails there.
def delpaths($ps): _compat_delpaths($ps);
# jq deletes all the paths at once, after sorting them, so `del(.[1], .[2])`
# deletes two elements of the original array; jaq's `f |= empty` deletes one
# after the other, so the later indices move.
def del(f): delpaths([path(f)]);
# Missing in jaq.
def leaf_paths: paths(scalars);
# jq 1.5 name of `recurse`, still a jq builtin.
def recurse_down: recurse;

## Streaming forms (missing in jaq); jq's definitions.
def tostream: path(def r: (.[]?|r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p+$q]);
def fromstream(f): { x: null, e: false } as $init
  | foreach f as $i ($init;
      if .e then $init end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;

## Generators

# jq: `nth($n; f)` for each $n (`nth(5,7; g)`), and a negative $n is an error;
# jaq's takes one n.
def nth($n; f):
  if $n < 0 then error("Out of bounds negative array index") else first(skip($n; f)) end;

## SQL-style operators (missing in jaq); jq's definitions.
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);

## Strings

# jq counts the UTF-8 bytes of strings and names the type otherwise; jaq's
# error says "cannot use [] as string".
def utf8bytelength:
  if type == "string" then tobytes | length
  else error("\(type) (\(_compat_show)) only strings have UTF-8 byte length") end;
# jq returns a non-string input (or one given a non-string) unchanged; jaq fails.
def ltrimstr($x): if type == "string" and ($x | type) == "string" then _compat_jaq_ltrimstr($x) end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" then _compat_jaq_rtrimstr($x) end;
# jq 1.8: both ends.
def trimstr($x): ltrimstr($x) | rtrimstr($x);
# jq: null elements are "", numbers and booleans their JSON, strings themselves,
# anything else cannot be added (jq's error); jaq's join writes null as "null"
# and arrays/objects as JSON.
def join($x): reduce .[] as $i (null;
    (if . == null then "" else . + $x end) as $acc
    | $i
    | if . == null then ""
      elif type == "boolean" or type == "number" then tojson
      elif type == "string" then .
      else error("string (\($acc | _compat_show)) and \(type) (\(_compat_show)) cannot be added") end
    | $acc + .) // "";

## Formats missing in jaq (the jaq binary has @csv/@tsv from jaq-fmts, the crates not).
def @csv:
  if type == "array" then
    map(if type == "number" or type == "boolean" then tojson
        elif type == "string" then "\"" + (split("\"") | join("\"\"")) + "\""
        elif . == null then ""
        else error("\(type) (\(_compat_show)) is not valid in a csv row") end)
    | join(",")
  else error("\(type) (\(_compat_show)) cannot be csv-formatted, only an array can be") end;
def @tsv:
  if type == "array" then
    map(if type == "number" or type == "boolean" then tojson
        elif type == "string" then split("\\") | join("\\\\") | split("\t") | join("\\t")
          | split("\n") | join("\\n") | split("\r") | join("\\r")
        elif . == null then ""
        else error("\(type) (\(_compat_show)) is not valid in a tsv row") end)
    | join("\t")
  else error("\(type) (\(_compat_show)) cannot be tsv-formatted, only an array can be") end;
def @base32: tostring | _compat_base32;
def @base32d: tostring | _compat_base32d;
# jq's `format("csv")` is `@csv`.
def format($f):
    if $f == "text" then @text elif $f == "json" then @json
  elif $f == "csv" then @csv elif $f == "tsv" then @tsv
  elif $f == "html" then @html elif $f == "sh" then @sh
  elif $f == "uri" then @uri elif $f == "urid" then @urid
  elif $f == "base64" then @base64 elif $f == "base64d" then @base64d
  elif $f == "base32" then @base32 elif $f == "base32d" then @base32d
  else error("\($f) is not a valid format") end;

## Arrays and objects

# jq: `has(nan)` is false; jaq fails on a NaN index.
def has($k): if ($k | type) == "number" and ($k | isnan) then false else _compat_jaq_has($k) end;
# jq refuses a negative depth and flattens [] to []; jaq's gives `null` for [] (via add)
# and ignores a negative depth.
def flatten($d):
  if $d < 0 then error("flatten depth must not be negative")
  else reduce .[] as $i ([]; if $i | type == "array" and $d != 0 then . + ($i | flatten($d - 1)) else . + [$i] end) end;
# jq takes .key, else .k/.name/.Name/.K/.Key (a false key is kept), makes non-string
# keys strings, and .value, else .v; jaq's takes only .key/.value and can build
# objects with non-string keys.
def from_entries: reduce .[] as $x ({};
    . + { ($x | if .key == null then .k // .name // .Name // .K // .Key else .key end
              | if type == "string" then . else tojson end):
          ($x | if has("value") then .value elif has("v") then .v else .Value end) });
# jq applies f bottom-up (children first, then the value); jaq's `.. |= f` is top-down.
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
# jq 1.7.1.
def toarray: if type == "array" then . else [.] end;

## Dates

# jq names the expected input in its errors; jaq says "cannot convert ... to time".
def _compat_brokendown: type == "array" and length >= 6 and (.[:6] | all(type == "number"));
def strftime($f):
  if type == "number" or _compat_brokendown then _compat_jaq_strftime($f)
  else error("strftime/1 requires parsed datetime inputs") end;
def strflocaltime($f):
  if type == "number" or _compat_brokendown then _compat_jaq_strflocaltime($f)
  else error("strflocaltime/1 requires parsed datetime inputs") end;
def mktime:
  if _compat_brokendown then _compat_jaq_mktime
  else error("mktime requires parsed datetime inputs") end;
# jq's (undocumented but builtin) date helpers.
def dateadd(u; n): . + n;
def datesub(u; n): . - n;
def date: todate;

## Math
# jq's lgamma_r: [lgamma, sign of gamma].
def lgamma_r: [lgamma, (if . < 0 and floor != . and (floor % 2 != 0) then -1 else 1 end)];

## About the implementation
def have_literal_numbers: true;
def have_decnum: false;
