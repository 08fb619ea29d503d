# jq compatibility definitions for `get`, loaded after jaq's core, std and json
# definitions (a later definition shadows an earlier one of the same name and
# arity, and shadows a native filter). `_compat_*` names are private helpers;
# `_compat_jaq_X` keeps jaq's own X for an override that still needs it.

# A value as jq shows it in error messages: JSON, cut to 11 bytes + "...".
def _compat_show: tojson | if length > 14 then .[:11] + "..." end;
# The longest start of a string of at most n bytes that ends at a character's end.
def _compat_cut($n): . as $s | [range(length; -1; -1) | select(($s[:.] | utf8bytelength) <= $n)][0] as $k | $s[:$k];
# jq 1.8's longer form, in the errors of operators (`jv::shown_long`).
def _compat_show_long:
  tojson | if utf8bytelength <= 29 then . elif startswith("\"") then _compat_cut(25) + "...\"" else _compat_cut(26) + "..." end;

# Aliases of jaq's own filters, taken before they are shadowed below.
def _compat_jaq_has($k): has($k);
def _compat_jaq_ltrimstr($x): ltrimstr($x);
def _compat_jaq_rtrimstr($x): rtrimstr($x);
def _compat_jaq_strftime($f): strftime($f);
def _compat_jaq_strflocaltime($f): strflocaltime($f);
def _compat_jaq_mktime: mktime;
def _compat_jaq_limit($n; f): limit($n; f);
def _compat_jaq_skip($n; f): skip($n; f);
def _compat_jaq_getpath($p): getpath($p);
def _compat_jaq_trim: trim;
def _compat_jaq_ltrim: ltrim;
def _compat_jaq_rtrim: rtrim;

## Numbers

# jq's `nan` and `infinite` are values; jaq-std makes them by dividing by zero, an error in
# jq and so here. jaq-std's definitions that use them, again over these.
def nan: _compat_nan;
def infinite: _compat_infinite;
def isnan: . < nan and nan < .;
def isinfinite: . == infinite or . == -infinite;
def isfinite: isnumber and (isinfinite | not);
def isnormal: isnumber and ((. == 0 or isnan or isinfinite) | not);
def finites: select(isfinite);
def normals: select(isnormal);
def logb:
    if . == 0.0 then -infinite
  elif isinfinite then infinite
  elif isnan then .
  else ilogb | . + 0.0 end;
def significand:
    if isinfinite or isnan then .
  elif . == 0.0 then 0.0
  else scalbln(.; ilogb | -1 * .) end;
# jq 1.8: a string that is a number and nothing else (jaq's reads its JSON values, so that
# `"0x10"` gave 0, then an error).
def tonumber: _compat_tonumber;

## Paths

# jq's setpath pads arrays with null (`null | setpath([2]; 1)` is [null,null,1]),
# builds objects/arrays from null and splices slice keys; jaq's is `getpath(p) = x`,
# which fails on indices past the end.
def setpath($p; $x): _compat_setpath($p; $x);
# jq's limit on a path's length (MAX_PATH_DEPTH), as setpath and delpaths have it.
def getpath($p):
  if ($p | type) == "array" and ($p | length) > 10000 then error("Path too deep")
  else _compat_jaq_getpath($p) end;
# jq's delpaths ignores indices out of range, deletes slices and checks that it
# gets an array of paths; jaq's deletes through `|= empty`, which fails there.
def delpaths($ps): _compat_delpaths($ps);
# jq deletes all the paths at once, after sorting them, so `del(.[1], .[2])`
# deletes two elements of the original array; jaq's `f |= empty` deletes one
# after the other, so the later indices move.
def del(f): delpaths([path(f)]);
# jq 1.7's: the paths set into null, so that an index makes an array (jaq-std's makes
# `{(index): …}`, an object with a number key).
def pick(pathexps): . as $in | reduce path(pathexps) as $a (null; setpath($a; $in | getpath($a)));
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

# jq: `input` with nothing left to read is an error (jaq's gives nothing).
def input: label $out | (inputs | ., break $out), error("No more inputs");

# jq 1.8: a negative count is an error, in its words; `nth($n; f)` for each $n
# (`nth(5,7; g)`), where jaq's takes one n.
def limit($n; f):
  if $n < 0 then error("limit doesn't support negative count") else _compat_jaq_limit($n; f) end;
def skip($n; f):
  if $n < 0 then error("skip doesn't support negative count") else _compat_jaq_skip($n; f) end;
def nth($n; f):
  if $n < 0 then error("nth doesn't support negative indices") else first(_compat_jaq_skip($n; f)) end;

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
# jq 1.8: an error for what is not a string, in the words of the builtin it uses.
def ltrimstr($x):
  if type == "string" and ($x | type) == "string" then _compat_jaq_ltrimstr($x)
  else error("startswith() requires string inputs") end;
def rtrimstr($x):
  if type == "string" and ($x | type) == "string" then _compat_jaq_rtrimstr($x)
  else error("endswith() requires string inputs") end;
# jq 1.8: both ends.
def trimstr($x): ltrimstr($x) | rtrimstr($x);
# jq 1.8's: only a boolean or the strings "true" and "false".
def toboolean:
    if type == "boolean" then .
  elif . == "true" then true
  elif . == "false" then false
  else error("\(type) (\(_compat_show)) cannot be parsed as a boolean") end;
# jq's internal builtin under `indices` on strings, callable, with its errors.
def _strindices($i):
    if type != "string" then error("\(type) (\(_compat_show)) cannot be searched, as it is not a string")
  elif ($i | type) != "string" then error("\($i | type) (\($i | _compat_show)) is not a string")
  else indices($i) end;
# jq 1.8's error for all three: "trim input must be a string".
def trim: if type == "string" then _compat_jaq_trim else error("trim input must be a string") end;
def ltrim: if type == "string" then _compat_jaq_ltrim else error("trim input must be a string") end;
def rtrim: if type == "string" then _compat_jaq_rtrim else error("trim input must be a string") end;
# jq: null elements are "", numbers and booleans their JSON, strings themselves,
# anything else cannot be added (jq's error); jaq's join writes null as "null"
# and arrays/objects as JSON.
def join($x): reduce .[] as $i (null;
    (if . == null then "" else . + $x end) as $acc
    | $i
    | if . == null then ""
      elif type == "boolean" or type == "number" then tojson
      elif type == "string" then .
      else error("string (\($acc | _compat_show_long)) and \(type) (\(_compat_show_long)) cannot be added") end
    | $acc + .) // "";

# jq (1.7, 1.8): a code point that is none is U+FFFD; jaq's makes another character.
def implode: _compat_implode;

## Formats missing in jaq (the jaq binary has @csv/@tsv from jaq-fmts, the crates not).
def @csv: _compat_csv;
def @tsv: _compat_tsv;
def @base32: tostring | _compat_base32;
def @base32d: tostring | _compat_base32d;
# jq: padding optional (`"YQ"` is `"a"`, as JWTs write it); jaq's refuses unpadded text.
def @base64d: _compat_base64d;
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

# jq names the expected input in its errors; jaq says "cannot convert ... to time". jq
# formats whole seconds (the time cut towards zero, as its `gmtime` and `strftime` cut
# them), where jaq writes a fraction (`1425599507.9 | todate` was "…:47.9Z").
def _compat_brokendown: type == "array" and length >= 1 and all(type == "number");
# jq 1.8 takes a broken-down time of fewer than six numbers, the rest 0.
def _compat_padded: if length < 6 then . + [range(6 - length) | 0] end;
def _compat_whole_seconds: if type == "number" then trunc else _compat_padded | .[5] |= trunc end;
def strftime($f):
    if ($f | type) != "string" then error("strftime/1 requires a string format")
  elif type == "number" or _compat_brokendown then _compat_whole_seconds | _compat_jaq_strftime($f)
  else error("strftime/1 requires parsed datetime inputs") end;
def strflocaltime($f):
    if ($f | type) != "string" then error("strflocaltime/1 requires a string format")
  elif type == "number" or _compat_brokendown then _compat_whole_seconds | _compat_jaq_strflocaltime($f)
  else error("strflocaltime/1 requires parsed datetime inputs") end;
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def todate: todateiso8601;
def mktime:
  if _compat_brokendown then _compat_padded | .[5] |= trunc | _compat_jaq_mktime
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
def have_decnum: true;

## Introspection
# jq lists its builtins as "name/arity"; these are the jq builtins this layer provides
# (jaq has no `builtins`). Filters about inputs, the environment, modules and halting
# are left out, as `get` does not promise them.
def builtins: ["IN/1", "IN/2", "INDEX/1", "INDEX/2", "JOIN/2", "JOIN/3", "JOIN/4", "abs/0", "acos/0", 
  "acosh/0", "add/0", "add/1", "all/0", "all/1", "all/2", "any/0", "any/1", "any/2", "arrays/0", 
  "ascii_downcase/0", "ascii_upcase/0", "asin/0", "asinh/0", "atan/0", "atan2/2", "atanh/0", 
  "booleans/0", "bsearch/1", "builtins/0", "capture/1", "capture/2", "cbrt/0", "ceil/0", 
  "combinations/0", "combinations/1", "contains/1", "copysign/2", "cos/0", "cosh/0", "debug/0", 
  "debug/1", "del/1", "delpaths/1", "drem/2", "empty/0", "endswith/1", "erf/0", "erfc/0", 
  "error/0", "error/1", "exp/0", "exp10/0", "exp2/0", "explode/0", "expm1/0", "fabs/0", "fdim/2", 
  "finites/0", "first/0", "first/1", "flatten/0", "flatten/1", "floor/0", "fma/3", "fmax/2", 
  "fmin/2", "fmod/2", "format/1", "frexp/0", "from_entries/0", "fromdate/0", "fromdateiso8601/0", 
  "fromjson/0", "fromstream/1", "gamma/0", "getpath/1", "gmtime/0", "group_by/1", "gsub/2", 
  "gsub/3", "has/1", "have_decnum/0", "have_literal_numbers/0", "hypot/2", "implode/0", "in/1", 
  "index/1", "indices/1", "infinite/0", "inside/1", "isempty/1", "isfinite/0", "isinfinite/0", 
  "isnan/0", "isnormal/0", "iterables/0", "j0/0", "j1/0", "jn/2", "join/1", "keys/0", 
  "keys_unsorted/0", "last/0", "last/1", "ldexp/2", "leaf_paths/0", "length/0", "lgamma/0", 
  "lgamma_r/0", "limit/2", "localtime/0", "log/0", "log10/0", "log1p/0", "log2/0", "logb/0", 
  "ltrim/0", "ltrimstr/1", "map/1", "map_values/1", "match/1", "match/2", "max/0", "max_by/1", 
  "min/0", "min_by/1", "mktime/0", "modf/0", "nan/0", "nearbyint/0", "nextafter/2", 
  "nexttoward/2", "normals/0", "not/0", "now/0", "nth/1", "nth/2", "nulls/0", "numbers/0", 
  "objects/0", "path/1", "paths/0", "paths/1", "pick/1", "pow/2", "pow10/0", "range/1", 
  "range/2", "range/3", "recurse/0", "recurse/1", "recurse/2", "recurse_down/0", "remainder/2", 
  "repeat/1", "reverse/0", "rindex/1", "rint/0", "round/0", "rtrim/0", "rtrimstr/1", "scalars/0", 
  "scalb/2", "scalbln/2", "scan/1", "scan/2", "select/1", "setpath/2", "significand/0", "sin/0", 
  "sinh/0", "skip/2", "sort/0", "sort_by/1", "split/1", "split/2", "splits/1", "splits/2", 
  "sqrt/0", "startswith/1", "stderr/0", "strflocaltime/1", "strftime/1", "strings/0", 
  "strptime/1", "sub/2", "sub/3", "tan/0", "tanh/0", "test/1", "test/2", "tgamma/0", 
  "to_entries/0", "toarray/0", "toboolean/0", "todate/0", "todateiso8601/0", "tojson/0", 
  "tonumber/0", "tostream/0", "tostring/0", "transpose/0", "trim/0", "trimstr/1", "trunc/0", 
  "truncate_stream/1", "type/0", "unique/0", "unique_by/1", "until/2", "utf8bytelength/0", 
  "values/0", "walk/1", "while/2", "with_entries/1", "y0/0", "y1/0", "yn/2"]
;
