// The one door from Swift to libxml2 (Debian's libxml2-dev), for the feeds parser (Sources/Feeds). libxml2 is
// opened on first use (`cxml_load`), not at start-up: linked the usual way, it and ICU and liblzma were bound
// by the dynamic loader before every command, 2.2 ms of a 10.6 ms `resolve` (Benchmarks/README.md, cold
// start). libxml2's headers are included for its types only (Feeds reads xmlNode's fields); every call goes
// through the table `cxml_load` fills, by a static inline wrapper named `cxml_` and the function it wraps.
// Calling libxml2's own declarations from Swift fails to link, as nothing links libxml2.
//
// The one rule the shim enforces: a document that declares an entity (`<!ENTITY ...>`, general or parameter,
// internal or external) is not parsed past the declaration, so no entity is ever expanded (billion laughs)
// and nothing outside the document is ever read (XXE); the parser context's SAX handler stops the parser at
// the first declaration. Parsing is also done without XML_PARSE_NOENT and XML_PARSE_DTDLOAD, with
// XML_PARSE_NONET, and within libxml2's default size limits (no XML_PARSE_HUGE).
#ifndef NEWSATLAS_CLIBXML2_H
#define NEWSATLAS_CLIBXML2_H

// Debian's libxml2 is built with ICU, so encoding.h would include the system's <unicode/ucnv.h>, whose
// UErrorCode clashes with Foundation's own ICU (_FoundationICU) in any Swift file that imports both ("'UErrorCode'
// has different definitions in different modules"). Nothing here touches ICU: the flag only adds two pointers to
// xmlCharEncodingHandler, a struct NewsAtlas never reads.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/uri.h>
#include <libxml/xmlerror.h>

/// libxml2's functions that NewsAtlas calls, resolved from libxml2.so.2 by `cxml_load`.
struct cxml_functions {
  void (*xmlInitParser)(void);
  xmlParserCtxtPtr (*xmlNewParserCtxt)(void);
  void (*xmlFreeParserCtxt)(xmlParserCtxtPtr context);
  void (*xmlStopParser)(xmlParserCtxtPtr context);
  xmlDocPtr (*xmlCtxtReadMemory)(xmlParserCtxtPtr context, const char *buffer, int size, const char *url,
                                 const char *encoding, int options);
  htmlDocPtr (*htmlReadMemory)(const char *buffer, int size, const char *url, const char *encoding,
                               int options);
  void (*xmlFreeDoc)(xmlDocPtr document);
  xmlNodePtr (*xmlDocGetRootElement)(const xmlDoc *document);
  xmlChar *(*xmlNodeGetContent)(const xmlNode *node);
  xmlChar *(*xmlNodeGetBase)(const xmlDoc *document, const xmlNode *node);
  xmlChar *(*xmlGetNsProp)(const xmlNode *node, const xmlChar *name, const xmlChar *namespace);
  xmlChar *(*xmlGetNoNsProp)(const xmlNode *node, const xmlChar *name);
  xmlChar *(*xmlBuildURI)(const xmlChar *uri, const xmlChar *base);
  int (*xmlStrlen)(const xmlChar *string);
  int (*xmlStrEqual)(const xmlChar *first, const xmlChar *second);
  void (*xmlSetGenericErrorFunc)(void *context, xmlGenericErrorFunc handler);
  void (*xmlSetStructuredErrorFunc)(void *context, xmlStructuredErrorFunc handler);
  /// The value of libxml2's `xmlFree` variable (its deallocator) when the library was loaded.
  xmlFreeFunc xmlFree;
};

/// Filled once by `cxml_load`; read only after it returned 0.
extern struct cxml_functions cxml_functions;

/// Opens libxml2.so.2 (or the library the environment's `NEWSATLAS_LIBXML2` names), resolves every function
/// above and calls xmlInitParser (libxml2's rule before threads parse), once per process (later calls return
/// the first call's answer). Returns 0 on success, otherwise what failed, for the caller to word:
/// `CXML_LOAD_CANNOT_OPEN` (`*detail`: the library's name as given; `*loader`: the loader's reason, dlerror's
/// words) or `CXML_LOAD_LACKS_FUNCTION` (`*detail`: the function). Either pointer may be NULL; the strings are
/// static storage.
enum { CXML_LOAD_CANNOT_OPEN = 1, CXML_LOAD_LACKS_FUNCTION = 2 };
int cxml_load(const char **detail, const char **loader);

/// Keeps libxml2 from writing to standard error on the calling thread: errors with no parser context (an
/// encoding conversion's "encoding error : input conversion failed", "I/O error : encoder error"), which
/// XML_PARSE_NOERROR does not cover, go to a handler that drops them (a context's own errors are still kept in
/// it for the caller). libxml2's handlers are per thread; every parse calls this first.
void cxml_quiet_thread(void);

/// A parser context whose SAX handler stops at the first entity declaration; NULL when out of memory.
/// Free it with cxml_xmlFreeParserCtxt. Only after `cxml_load` returned 0. Quiets the thread (`cxml_quiet_thread`).
xmlParserCtxtPtr cxml_new_parser_ctxt_refusing_entities(void);

static inline void cxml_xmlFreeParserCtxt(xmlParserCtxtPtr context) { cxml_functions.xmlFreeParserCtxt(context); }

static inline xmlDocPtr cxml_xmlCtxtReadMemory(xmlParserCtxtPtr context, const char *buffer, int size,
                                               const char *url, const char *encoding, int options) {
  return cxml_functions.xmlCtxtReadMemory(context, buffer, size, url, encoding, options);
}

static inline htmlDocPtr cxml_htmlReadMemory(const char *buffer, int size, const char *url, const char *encoding,
                                             int options) {
  cxml_quiet_thread();
  return cxml_functions.htmlReadMemory(buffer, size, url, encoding, options);
}

static inline void cxml_xmlFreeDoc(xmlDocPtr document) { cxml_functions.xmlFreeDoc(document); }

static inline xmlNodePtr cxml_xmlDocGetRootElement(const xmlDoc *document) {
  return cxml_functions.xmlDocGetRootElement(document);
}

static inline xmlChar *cxml_xmlNodeGetContent(const xmlNode *node) { return cxml_functions.xmlNodeGetContent(node); }

static inline xmlChar *cxml_xmlNodeGetBase(const xmlDoc *document, const xmlNode *node) {
  return cxml_functions.xmlNodeGetBase(document, node);
}

static inline xmlChar *cxml_xmlGetNsProp(const xmlNode *node, const xmlChar *name, const xmlChar *namespace) {
  return cxml_functions.xmlGetNsProp(node, name, namespace);
}

static inline xmlChar *cxml_xmlGetNoNsProp(const xmlNode *node, const xmlChar *name) {
  return cxml_functions.xmlGetNoNsProp(node, name);
}

static inline xmlChar *cxml_xmlBuildURI(const xmlChar *uri, const xmlChar *base) {
  return cxml_functions.xmlBuildURI(uri, base);
}

static inline int cxml_xmlStrlen(const xmlChar *string) { return cxml_functions.xmlStrlen(string); }

static inline int cxml_xmlStrEqual(const xmlChar *first, const xmlChar *second) {
  return cxml_functions.xmlStrEqual(first, second);
}

/// Frees what libxml2 allocated (a string from xmlNodeGetContent, xmlGetNsProp, xmlBuildURI, ...).
static inline void cxml_xmlFree(void *pointer) { cxml_functions.xmlFree(pointer); }

/// What the handler above sets a context's `_private` to when it refuses a declaration.
extern char cxml_refused_entity_marker;

/// Whether the parse was stopped by the handler above (an entity declaration).
static inline int cxml_ctxt_stopped_by_user(xmlParserCtxtPtr context) {
  return context->errNo == XML_ERR_USER_STOP || context->_private == &cxml_refused_entity_marker;
}

/// The parse's last error message and line, if any (message NULL otherwise).
static inline const char *cxml_ctxt_last_error(xmlParserCtxtPtr context, int *line) {
  *line = context->lastError.line;
  return context->lastError.message;
}

/// The options every feed is parsed with: no network, no entity substitution, no DTD loading, quiet.
static inline int cxml_feed_options(void) {
  return XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_COMPACT;
}

/// The options a feed that is not well-formed is read again with, as feedparser's loose parser reads it: the
/// feed options and libxml2's recovery (an unclosed element is closed at the end, text after the root element
/// and a misplaced XML declaration are passed over); the entity rule holds as in any parse.
static inline int cxml_feed_recovery_options(void) { return cxml_feed_options() | XML_PARSE_RECOVER; }

/// The options an HTML fragment (a description) is parsed with: no network, quiet. The html and body elements
/// are implied, as a browser implies them: without them libxml2 wraps text after a leading inline element in a
/// paragraph of its own (`<i>b</i>c` would read "b c").
static inline int cxml_html_options(void) {
  return HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_COMPACT;
}

#endif
