package fromgo

// Reference is the language of mcpgen tools: the directives, the function
// each declares, and what struct fields and their mcp tags say. mcpgen
// tools --help prints it; the README quotes it (a test keeps them equal).
const Reference = `Directives, in a function's doc comment (the rest of the comment is the
description):

  //mcp:tool [NAME] [title="…"] [readOnly] [destructive] [idempotent] [openWorld]
             [annotationTitle="…"] [task=optional|required] [stateful|stateless]
             [app=ui://… [appVisibility=model,app]] ICONS META VISIBLE
  //mcp:prompt [NAME] [title="…"] [stateful|stateless] ICONS META VISIBLE
  //mcp:resource URI [name=…] [title="…"] [mimeType=…] ICONS META VISIBLE
  //mcp:template URI-TEMPLATE [name=…] [title="…"] [mimeType=…] ICONS META VISIBLE
  //mcp:complete PROMPT-NAME|URI-TEMPLATE [arg=NAME]
  //mcp:app ui://… [name=…] [title="…"] [connectDomains=…] [resourceDomains=…] [frameDomains=…]
           [baseUriDomains=…] [permissions=camera,microphone,geolocation,clipboardWrite]
           [domain=…] [prefersBorder] ICONS VISIBLE

NAME defaults to the function's name in snake_case. ICONS are icon=
attributes, one per icon, "SRC [mimeType=…] [sizes=48x48,…|any]
[theme=light|dark]" (SRC an https:, http: or data: URI); META is
meta="{…}" (a JSON object, quotes escaped) or meta=NAME (a package-level
variable, encoded with encoding/json). Both are written in each revision
that has them (icons from 2025-11-25, _meta from 2025-06-18) and left out
of the others. VISIBLE is visible=NAME, a package-level
func(context.Context) bool: the item is listed and served only to the
principals it returns true for (mcp.PrincipalFrom(ctx)), to others it does
not exist; such lists are private (cacheScope), and
mcp.Server.NotifyListChangedTo tells only the principals whose view
changed. The functions:

  tool      func(ctx[, *mcp.Request][, In]) (Out, error)
            In is a struct (the arguments); Out a struct (structuredContent,
            and its JSON as text), a string, []features.Content or
            *features.Result
  prompt    func(ctx[, *mcp.Request][, Args]) ([]features.Message | string, error)
            Args is a struct of string fields (the arguments); a string is
            one user message
  resource  func(ctx[, *mcp.Request]) (string | []byte | []features.Contents, error)
  template  func(ctx[, *mcp.Request], uri string[, Vars]) (string | []byte | []features.Contents, error)
            Vars is a struct of string fields, one per {variable}
  app       func(ctx[, *mcp.Request]) (string | []features.Contents, error)
            an MCP App's UI resource (io.modelcontextprotocol/ui, SEP-1865):
            HTML served as text/html;profile=mcp-app, its CSP domains
            (comma-separated), permissions, domain and border in _meta.ui;
            a tool shows it with app=ui://… [appVisibility=model,app]
            (_meta.ui.resourceUri). The extension is declared where
            capabilities have extensions (2026-07-28 on); _meta.ui is
            written where _meta is (2025-06-18 on).
  complete  func(ctx[, *mcp.Request][, argument string], value string[, resolved map[string]string]) ([]string, error)
            completes an argument of the prompt (or a variable of the
            template) declared in the package: the one arg= names, or, with
            the argument parameter, every one without a function of its
            own; resolved are the arguments the client already gave. It
            answers completion/complete on every revision that has it (the
            first 100 values, with the total), and completions are declared
            only then.

Struct fields: the json tag names the member; omitempty (or omitzero) and
pointers make it optional (a nil pointer is left out). A field's doc
comment is its description, without the Go name it begins with. Types:
string, bool, integers (8 to 32 bits with their range; 64 bits without it,
the decoder still checks it), float32 and float64, time.Time (date-time),
[]byte (base64), json.RawMessage or wire.Raw (any JSON value), named
structs, slices, maps with string keys, pointers; a named string type with
constants is an enum. Interfaces, channels, functions and recursive types
are refused, at the field.

The mcp tag, comma-separated:

  required                               required even with omitempty, or a pointer (then null is allowed)
  enum=a|b|c                             the allowed values
  minimum=N  maximum=N                   inclusive bounds of a number
  exclusiveMinimum=N  exclusiveMaximum=N exclusive bounds
  minLength=N  maxLength=N               a string's length
  minItems=N  maxItems=N                 a slice's length
  format=uri|date|date-time              checked by the decoder
  title=…  description=…                 instead of the doc comment
  pattern=RE                             a regular expression; last, as it takes the rest of the tag
`
