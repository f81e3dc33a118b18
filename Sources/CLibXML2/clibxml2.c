#include "clibxml2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct cxml_functions cxml_functions;

static pthread_once_t once = PTHREAD_ONCE_INIT;
// What failed, for the caller to word in its reader's language: its kind, the name it concerns and the
// loader's own words (dlerror's).
static int failure_kind;
static const char *failure_detail;
static char loader_words[512];

// Resolves one function into the table, or leaves `load` with the failure recorded when the library lacks it.
#define CXML_RESOLVE(name)                                                                              \
  do {                                                                                                  \
    *(void **)(&cxml_functions.name) = dlsym(library, #name);                                           \
    if (cxml_functions.name == NULL) {                                                                  \
      failure_kind = CXML_LOAD_LACKS_FUNCTION;                                                          \
      failure_detail = #name;                                                                           \
      return;                                                                                           \
    }                                                                                                   \
  } while (0)

static void load(void) {
  // NEWSATLAS_LIBXML2 names another build of libxml2 2.9 or later (a path, or a name the loader finds).
  const char *name = getenv("NEWSATLAS_LIBXML2");
  if (name == NULL || *name == '\0') name = "libxml2.so.2";
  // RTLD_LOCAL: libxml2's symbols stay out of the global namespace; nothing is ever unloaded.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *words = dlerror();
    snprintf(loader_words, sizeof loader_words, "%s", words != NULL ? words : "");
    failure_kind = CXML_LOAD_CANNOT_OPEN;
    failure_detail = name;
    return;
  }
  CXML_RESOLVE(xmlInitParser);
  CXML_RESOLVE(xmlNewParserCtxt);
  CXML_RESOLVE(xmlFreeParserCtxt);
  CXML_RESOLVE(xmlStopParser);
  CXML_RESOLVE(xmlCtxtReadMemory);
  CXML_RESOLVE(htmlReadMemory);
  CXML_RESOLVE(xmlFreeDoc);
  CXML_RESOLVE(xmlDocGetRootElement);
  CXML_RESOLVE(xmlNodeGetContent);
  CXML_RESOLVE(xmlNodeGetBase);
  CXML_RESOLVE(xmlGetNsProp);
  CXML_RESOLVE(xmlGetNoNsProp);
  CXML_RESOLVE(xmlBuildURI);
  CXML_RESOLVE(xmlStrlen);
  CXML_RESOLVE(xmlStrEqual);
  CXML_RESOLVE(xmlSetGenericErrorFunc);
  CXML_RESOLVE(xmlSetStructuredErrorFunc);
  // xmlFree is a variable holding the deallocator (libxml2 is built without per-thread allocation hooks).
  xmlFreeFunc *deallocator = (xmlFreeFunc *)dlsym(library, "xmlFree");
  if (deallocator == NULL || *deallocator == NULL) {
    failure_kind = CXML_LOAD_LACKS_FUNCTION;
    failure_detail = "xmlFree";
    return;
  }
  cxml_functions.xmlFree = *deallocator;
  cxml_functions.xmlInitParser();
}

int cxml_load(const char **detail, const char **loader) {
  pthread_once(&once, load);
  if (detail != NULL) *detail = failure_detail;
  if (loader != NULL) *loader = loader_words;
  return failure_kind;
}

char cxml_refused_entity_marker;

// Stops the parser and marks the context, so that the refusal is seen even if a later error (in recovery
// mode) replaced errNo.
static void refuse(xmlParserCtxtPtr context) {
  context->_private = &cxml_refused_entity_marker;
  cxml_functions.xmlStopParser(context);
}

static void refuse_entity_decl(void *context, const xmlChar *name, int type, const xmlChar *publicId,
                               const xmlChar *systemId, xmlChar *content) {
  (void)name, (void)type, (void)publicId, (void)systemId, (void)content;
  refuse((xmlParserCtxtPtr)context);
}

static void refuse_unparsed_entity_decl(void *context, const xmlChar *name, const xmlChar *publicId,
                                        const xmlChar *systemId, const xmlChar *notationName) {
  (void)name, (void)publicId, (void)systemId, (void)notationName;
  refuse((xmlParserCtxtPtr)context);
}

static void drop_generic(void *context, const char *message, ...) { (void)context, (void)message; }

static void drop_structured(void *context, xmlErrorPtr error) { (void)context, (void)error; }

void cxml_quiet_thread(void) {
  cxml_functions.xmlSetGenericErrorFunc(NULL, drop_generic);
  cxml_functions.xmlSetStructuredErrorFunc(NULL, drop_structured);
}

xmlParserCtxtPtr cxml_new_parser_ctxt_refusing_entities(void) {
  cxml_quiet_thread();
  xmlParserCtxtPtr context = cxml_functions.xmlNewParserCtxt();
  if (context == NULL || context->sax == NULL) {
    if (context != NULL) cxml_functions.xmlFreeParserCtxt(context);
    return NULL;
  }
  context->sax->entityDecl = refuse_entity_decl;
  context->sax->unparsedEntityDecl = refuse_unparsed_entity_decl;
  return context;
}
