// libxml2 (Debian's libxml2-dev), reached only through this shim, for the feeds parser (Sources/Feeds).
//
// The one rule it enforces: a document that declares an entity (`<!ENTITY ...>`, general or parameter,
// internal or external) is not parsed past the declaration, so no entity is ever expanded (billion laughs)
// and nothing outside the document is ever read (XXE); the parser context's SAX handler stops the parser at
// the first declaration. Parsing is also done without XML_PARSE_NOENT and XML_PARSE_DTDLOAD, with
// XML_PARSE_NONET, and within libxml2's default size limits (no XML_PARSE_HUGE).
#ifndef NEWSATLAS_CLIBXML2_SHIM_H
#define NEWSATLAS_CLIBXML2_SHIM_H

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/uri.h>
#include <libxml/xmlerror.h>

static void cxml_refuse_entity_decl(void *context, const xmlChar *name, int type, const xmlChar *publicId,
                                    const xmlChar *systemId, xmlChar *content) {
  (void)name, (void)type, (void)publicId, (void)systemId, (void)content;
  xmlStopParser((xmlParserCtxtPtr)context);
}

static void cxml_refuse_unparsed_entity_decl(void *context, const xmlChar *name, const xmlChar *publicId,
                                             const xmlChar *systemId, const xmlChar *notationName) {
  (void)name, (void)publicId, (void)systemId, (void)notationName;
  xmlStopParser((xmlParserCtxtPtr)context);
}

/// A parser context whose SAX handler stops at the first entity declaration; NULL when out of memory.
/// Free it with xmlFreeParserCtxt.
static inline xmlParserCtxtPtr cxml_new_parser_ctxt_refusing_entities(void) {
  xmlParserCtxtPtr context = xmlNewParserCtxt();
  if (context == NULL || context->sax == NULL) {
    if (context != NULL) xmlFreeParserCtxt(context);
    return NULL;
  }
  context->sax->entityDecl = cxml_refuse_entity_decl;
  context->sax->unparsedEntityDecl = cxml_refuse_unparsed_entity_decl;
  return context;
}

/// Whether the parse was stopped by the handler above (an entity declaration).
static inline int cxml_ctxt_stopped_by_user(xmlParserCtxtPtr context) {
  return context->errNo == XML_ERR_USER_STOP;
}

/// The parse's last error message and line, if any (message NULL otherwise).
static inline const char *cxml_ctxt_last_error(xmlParserCtxtPtr context, int *line) {
  *line = context->lastError.line;
  return context->lastError.message;
}

/// xmlFree is a function pointer variable; Swift calls it through this.
static inline void cxml_free(void *pointer) { xmlFree(pointer); }

/// The options every feed is parsed with: no network, no entity substitution, no DTD loading, quiet.
static inline int cxml_feed_options(void) {
  return XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_COMPACT;
}

/// The options an HTML fragment (a description) is parsed with: no network, quiet, no implied html/body.
static inline int cxml_html_options(void) {
  return HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NOIMPLIED |
         HTML_PARSE_COMPACT;
}

#endif
