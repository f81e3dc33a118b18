/// Every message NewsAtlas says to people, by key, in English and French: the one catalogue the command line
/// and the service word their help, output and errors from (`Message.text(_:in:)`). A new message is a case
/// here and a line in `texts`; `MessageCatalogueTests` checks that both languages are there with the same
/// placeholders.
public enum Message: String, CaseIterable, Sendable {
  case rootAbstract
  case rootDiscussion
  case exitStatusDiscussion
  case examplesRoot
  case examplesNearest
  case examplesResolve
  case examplesClusters
  case examplesServe
  case examplesTiles
  case examplesCountries
  case examplesHeadlines
  case examplesSearch
  case examplesSources
  case examplesFeeds
  case examplesConfig
  case examplesQuota
  case exitStatusPointer
  case countriesColumns
  case resolveSeparator
  case configColumns
  case seeHelp
  case langHelp
  case colorHelp
  case standardOutputFailed
  case formatTextOrJSON
  case unknownOption
  case eitherPlaceOrInput
  case tooManyCoordinates
  case longitudeMissing
  case placeMissing
  case threadsHelp
  case threadsRange
  case batchFormat
  case batchFailedRows
  case batchFailedRowsJSONL
  case batchOneFailedRow
  case batchOneFailedRowJSONL
  case nearestAbstract
  case nearestDiscussion
  case nearestPlaceHelp
  case nearestCountHelp
  case nearestMaxKmHelp
  case nearestFormatHelp
  case nearestPointsHelp
  case nearestInputHelp
  case nearestCountRange
  case nearestMaxKmRange
  case nearestCountWithCSV
  case nearestOnePlaceFormat
  case nearestNothingWithin
  case nearestBearing
  case resolveAbstract
  case resolveDiscussion
  case resolvePlaceHelp
  case resolveFormatHelp
  case newsCountriesHelp
  case newsCountriesValue
  case resolveInputHelp
  case resolveOnePlaceFormat
  case resolveInside
  case resolveSea
  case resolveNearest
  case resolveIn
  case resolveMarkerAway
  case countriesAbstract
  case countriesQueryHelp
  case countriesNoMatch
  case clustersAbstract
  case clustersFormatHelp
  case clustersColumns
  case clustersTileColumns
  case clustersKindCluster
  case clustersKindPoint
  case clustersSplitsAt
  case clustersSplitsSentence
  case clustersDiscussion
  case clustersZoomHelp
  case clustersBboxHelp
  case clustersPointsHelp
  case clustersFilterHelp
  case clustersExpansionZoomHelp
  case clustersChildrenHelp
  case clustersLeavesHelp
  case clustersLimitHelp
  case clustersOffsetHelp
  case clustersTileHelp
  case clustersNoQuery
  case clustersSeveralQueries
  case clustersBboxWithZoom
  case clustersLimitOffset
  case clustersIdsFromZoom
  case clusteringSumHelp
  case clusteringMinHelp
  case clusteringMaxHelp
  case clusteringTwice
  case clusteringReserved
  case shapeTitle
  case shapeRadiusHelp
  case shapeExtentHelp
  case shapeMinZoomHelp
  case shapeMaxZoomHelp
  case shapeMinPointsHelp
  case shapeNodeSizeHelp
  case tilesAbstract
  case tilesDiscussion
  case tilesPointsHelp
  case tilesOutHelp
  case tilesLayerHelp
  case tilesFilterHelp
  case tilesMaxZoom
  case tilesLayerName
  case tilesProgress
  case tilesRate
  case tilesZoomDone
  case tilesZoomDoneOne
  case tilesClustering
  case progressRead
  case progressRows
  case progressRate
  case progressLeft
  case tilesSummary
  case serveAbstract
  case serveDiscussion
  case serveHostHelp
  case servePortHelp
  case servePointsHelp
  case serveMaxBodyHelp
  case serveGraceHelp
  case serveCorsHelp
  case serveThreadsHelp
  case serveTileCacheHelp
  case serveFilterCacheHelp
  case serveFilterBuildsHelp
  case serveFilterQueueHelp
  case serveMaxFeaturesHelp
  case serveIdleTimeoutHelp
  case serveHeaderTimeoutHelp
  case serveBodyTimeoutHelp
  case serveSendTimeoutHelp
  case serveMaxConnectionsHelp
  case serveNoNewsHelp
  case serveLeafletHelp
  case serveRange
  case serveSecondsRange
  case serveMaxConnectionsRange
  case servePointsShape
  case serveDatasetName
  case serveDatasetTwice
  case serveCannotServe
  case serveAddressInUse
  case serveNotAnAddressHere
  case serveNoSuchHost
  case serveWriteTokenFileHelp
  case serveDatasetsDirHelp
  case serveTokenUnreadable
  case serveTokenNotRegular
  case serveTokenReadable
  case serveTokenFileOrigin
  case serveTokenShape
  case serveDatasetKept
  case serveDatasetsFolderLocked
  case serveDatasetsFolderNotFolder
  case serveDatasetsFolderUnusable
  case keptNotRegular
  case keptJournalNotRegular
  case fileKindRegular
  case fileKindSpecial
  case apiBaseHelp
  case timeoutHelp
  case concurrencyHelp
  case utcHelp
  case refreshHelp
  case offlineHelp
  case forceHelp
  case timeoutRange
  case concurrencyRange
  case refreshAndOffline
  case cacheOfflineOnly
  case cacheNeeded
  case planOverBudgetHint
  case ownBudgetHint
  case headlinesAbstract
  case headlinesDiscussion
  case headlinesCountryHelp
  case headlinesCountriesHelp
  case headlinesNearHelp
  case headlinesClusterHelp
  case headlinesZoomHelp
  case headlinesAllHelp
  case headlinesCategoryHelp
  case headlinesCategoriesHelp
  case headlinesPageSizeHelp
  case headlinesSourceHelp
  case headlinesSearchFallbackHelp
  case headlinesProbeHelp
  case headlinesDryRunHelp
  case headlinesProviderHelp
  case headlinesFeedHelp
  case headlinesProviderFlag
  case headlinesFeedNeedsFeeds
  case headlinesSourceNeedsNewsAPI
  case headlinesKeepFavourite
  case headlinesFavouriteSourcesRefused
  case headlinesAllFailed
  case headlinesSomeFailed
  case headlinesOtherAbove
  case headlinesOthersAbove
  case headlinesErrorsInJSON
  case headlinesNoHeadlines
  case headlinesNothingToAsk
  case headlinesArticles
  case headlinesOneArticle
  case headlinesViaTop
  case headlinesViaSources
  case headlinesViaSearch
  case headlinesViaGDELT
  case headlinesViaFeeds
  case headlinesViaSource
  case planHeading
  case planResults
  case planOneResult
  case planCached
  case planSend
  case planLater
  case planNone
  case planSourcesList
  case planPacked
  case planProbe
  case planAwaiting
  case planSends
  case planRequests
  case planOneRequest
  case planUpToMore
  case planMoreOnly
  case planBudget
  case planTakes
  case planAtMost
  case planGDELTSpacing
  case searchAbstract
  case searchQueryHelp
  case searchLanguageHelp
  case searchSortByHelp
  case searchFromHelp
  case searchToHelp
  case searchSourcesHelp
  case searchDomainsHelp
  case searchExcludeDomainsHelp
  case searchSearchInHelp
  case searchPageSizeHelp
  case searchCount
  case sourcesAbstract
  case sourcesNameHelp
  case sourcesCountryHelp
  case sourcesLanguageHelp
  case sourcesCategoryHelp
  case sourcesNoneListed
  case sourcesNoMatch
  case sourcesAnd
  case quotaAbstract
  case quotaNoCache
  case quotaUsage
  case quotaSpent
  case quotaOldest
  case durationSeconds
  case durationSecond
  case durationMinutes
  case durationMinute
  case durationHours
  case durationHour
  case durationDays
  case durationDay
  // Article dates (HumanDate, and the map page's dates): french-a's block.
  case dateJustNow
  case dateUnknown
  case dateMinutesAgo
  case dateHoursAgo
  case dateToday
  case dateOnDay
  case monthJanuary
  case monthFebruary
  case monthMarch
  case monthApril
  case monthMay
  case monthJune
  case monthJuly
  case monthAugust
  case monthSeptember
  case monthOctober
  case monthNovember
  case monthDecember
  // The map page (MapPage.html and its script, written by the service in the page's language): french-a's block.
  case mapDataset
  case mapLatitude
  case mapLongitude
  case mapNearMe
  case mapUseMyLocation
  case mapCountry
  case mapGo
  case mapWholeWorld
  case mapProperty
  case mapValue
  case mapFilter
  case mapOtherLanguage
  case mapMap
  case mapClose
  case mapCategory
  case mapFavouriteSource
  case mapLoading
  case mapNoNews
  case mapCluster
  case mapPoint
  case mapNearest
  case mapBadPlace
  case mapNoLocation
  case mapFailed
  case mapTopHeadlines
  case mapNoFavouriteSource
  case mapOffer
  case mapYes
  case mapFiltered
  case mapBorders
  case mapProviderFeeds
  case mapViaSourceCountry
  case mapCategoryBusiness
  case mapCategoryEntertainment
  case mapCategoryGeneral
  case mapCategoryHealth
  case mapCategoryScience
  case mapCategorySports
  case mapCategoryTechnology
  case mapNearestOffer
  case mapShowNews
  case mapNoProperties
  case mapNewsHere
  case mapUnreachable
  case mapRetry
  case mapFilterCount
  case mapUnknownProperty
  case mapNoCountry
  case mapWhichCountry
  case mapTools
  case mapSearch
  case mapHint
  case mapHideHint
  case mapLegend
  case mapLegendCluster
  case mapLegendPoint
  case mapLegendNewsCountry
  case mapLegendOtherCountry
  case mapLegendPin
  // A label and what it labels, with the language's colon: a result of headlines that failed and its error
  // sentence (french-a), an article's source and title (fr31).
  case labelled
  case configAbstract
  case configDiscussion
  case configActionHelp
  case configKeyHelp
  case configValueHelp
  case configFormatHelp
  case configCannotRead
  case configOneLine
  case configShowTakesNothing
  case configUnknownAction
  case configNameASetting
  case configNotASettingDidYouMean
  case notACommand
  case notACommandDidYouMean
  case unknownOptionDidYouMean
  case configNotSet
  case configGiveValue
  case originFlag
  case originEnvironment
  case originFile
  case originDefault
  case originUnset
  case originSet
  case feedsAbstract
  case feedsDiscussion
  case feedsActionHelp
  case feedsCountryHelp
  case feedsURLHelp
  case feedsFormatHelp
  case feedsUnknownAction
  case feedsTakesCountryAndURL
  case feedsTakesNothingMore
  case feedsTakesACountryMore
  case feedsAdded
  case feedsAddedFromPage
  case feedsPageNamesNoFeed
  case feedsAddedUnread
  case feedsNoCheckHelp
  case feedsTimeoutHelp
  case feedsCheckColumns
  case feedsCheckFailed
  case feedsAlreadyHas
  case feedsRemoved
  case feedsNoSuchFeed
  case feedsNone
  case feedsNoneForCountry
  case settingCountryHelp
  case settingLanguageHelp
  case settingCategoryHelp
  case settingSortByHelp
  case settingInterfaceLanguageHelp
  case settingSourcesHelp
  case settingAPIBaseHelp
  case settingAPIKeyHelp
  case settingTTLHeadlinesHelp
  case settingTTLSearchHelp
  case settingTTLSourcesHelp
  case settingQuotaDayHelp
  case settingQuotaHalfDayHelp
  case settingProviderHelp
  case settingGDELTBaseHelp
  case settingGDELTSpacingHelp
  case settingDefaultSeconds
  case notALanguage
  case notACategory
  case notASortOrder
  case notAnInterfaceLanguage
  case notABase
  case apiBaseName
  case gdeltBaseName
  case notAProvider
  case notAWholeNumber
  case settingTooLarge
  case settingMaximumRequests
  case settingMaximumHour
  case settingMaximumYear
  case apiKeyProblem
  case apiKeyEmpty
  case apiKeyControl
  case apiKeyLong
  case apiKeyCharacters
  case keyFileReadable
  case notASetting
  case didYouMean
  case settingMustBeString
  case settingMustBeStringOrNumber
  case lineOfFile
  case unknownSource
  case unknownSourceNoneNear
  // The same refusals said to the service's users, who have no command line: its /v1/sources lists the ids.
  case serviceUnknownSource
  case serviceUnknownSourceNoneNear
  case sourceIdShape
  case tooManySources
  case sourcesListNotCached
  case sourceOutsideCountries
  case twoLetterCountry
  case mixSourcesAndCountry
  case serviceSourceNeedsNewsAPI
  case providerNoSources
  case providerNoCategorySources
  case providerNoFeeds
  case providerFeedsNoCategories
  case providerGDELTNoCategories
  case providerNoRouteGDELTOff
  case providerNotNewsAPICountry
  case serviceBatchFormat
  case serviceBatchCountNeedsJSONL
  case serviceBatchNotJSON
  case serviceBodyTooLarge
  case serviceBodyOverLimit
  case serviceTooManyLeaves
  case serviceTooManyChildren
  case serviceTooManyInArea
  case serviceGiveMapZoom
  case serviceNoLeafletFile
  case serviceCountAtMost
  case serviceMaxKmNegative
  case serviceTileFile
  case serviceNoTileJSON
  case serviceFeatureIdShape
  case serviceMarkersBuiltIn
  case serviceCannotKeepBody
  case serviceClusterIdShape
  case serviceNeedsWriteToken
  case serviceWrongWriteToken
  case serviceNoDatasetToWrite
  case serviceWritesOff
  case serviceWritesOffNoFolder
  case serviceBodyNotKept
  case serviceBodyNotFeatureCollection
  case serviceDatasetNotKept
  case serviceChangeUnsynced
  case serviceNoFeatureWithId
  case serviceKeptNotServed
  case serviceFilterTooLong
  case serviceFilterTooCostly
  case serviceFilterQueueFull
  case serviceHostTwice
  case serviceHostMissing
  case serviceNoLeaflet
  case theUploadOf
  case theDatasetNamed
  case datasetNotKept
  case datasetStepNotKept
  case datasetUnsynced
  case datasetStepUnsynced
  case datasetStepOpening
  case datasetStepCuttingBack
  case datasetStepWriting
  case datasetStepSyncing
  case datasetStepSyncingFolderAt
  case datasetStepSyncingFolder
  case datasetStepRemoving
  case datasetStepBuilding
  case keptJournalDamaged
  case keptTemporaryRemoved
  case keptJournalOrphaned
  case keptJournalStale
  case keptJournalUnmatched
  case keptJournalTailCut
  case keptJournalTailNotKept
  case keptNotMovedAside
  case keptJournalForeign
  case keptJournalUnreadable
  case keptCannotServe
  // acc30: a dataset's removal whose journal stays, a parameter to an endpoint that takes none
  case datasetRemovedJournalLeft
  case serviceTakesNoParameter
  case clusterNoSuchId
  case clusterOptionRange
  case clusterAcceptsZoom
  case clusterAcceptsMaxZoom
  case clusterAcceptsMinPoints
  case clusterAcceptsRadius
  case clusterAcceptsExtent
  case clusterAcceptsNodeSize
  case clusterNotAtZoom
  case parserUnknownOptionSuggested
  case parserUnknownOption
  case parserMissingArgument
  case parserMissingOneOf
  case parserMissingValue
  case parserTakesNoValue
  case parserUnexpectedArgument
  case parserUnexpectedArguments
  case parserSetTwice
  case parserFlag
  case parserInvalidValueFor
  case parserInvalidValue
  case parserProvideOneOfList
  case parserProvideOneOf
  case parserMissingSubcommand
  case helpOverviewHeading
  case helpUsageHeading
  case helpArgumentsHeading
  case helpOptionsHeading
  case helpSubcommandsHeading
  case helpDefault
  case helpValues
  case helpDefaultAfterValues
  // Between the items of a list whose items hold commas (config's keys): French spaces its ';' off (fr31).
  case listSemicolon
  case helpShowHelpLine
  case helpShowVersion
  case helpSubcommandHelpLine
  case helpSeeSubcommand
  case serviceMethodNotAllowed
  case topHeadlinesNeed
  case searchNeeds
  case searchWordsLong
  case notADate
  case fromAfterTo
  case searchInFields
  case pageSizeRange
  case pageRange
  case freePlanPages
  case missingKey
  case quotaUsedUp
  case tryAgainIn
  case freePlanAllows
  case beyondPlan
  case keyNotAccepted
  case serviceAnswered
  case notItsJSON
  // What a service answered instead of its JSON (ServiceAnswer), inside notItsJSON and gdeltNotItsJSON (fr31).
  case answerEmpty
  case answerBegins
  case notCached
  case budgetSpent
  case planOverBudget
  case nextFreeIn
  case cacheCouldNotCount
  case feedAnswered
  case feedUnreadable
  case gdeltRefused
  case gdeltTurnTooFar
  // A paced GDELT headlines call's requests as they answer, on a terminal (issue 47 item 10).
  case gdeltRequestDone
  case gdeltRequestCountries
  case gdeltRequestFailed
  // search without a key, through GDELT (issue 47 item 8).
  case gdeltSearchCannot
  case gdeltSearchOf
  case searchCountGDELT
  case searchCountGDELTOne
  // serve --postgres: a PostGIS table as a dataset (issue 45).
  case postgresURLShape
  case postgresSSLMode
  case postgresURLParameter
  case postgresTableShape
  case postgresColumnShape
  case postgresConnect
  case postgresRefused
  case postgresNoTable
  case postgresNoColumn
  case postgresNotGeometry
  case postgresNoGeometry
  case postgresScratch
  case postgresSkipped
  case postgresNoURL
  case postgresOptionsWithoutTable
  case postgresKeptHidden
  case postgresLoaded
  case postgresNoKey
  case postgresTrigger
  case postgresConnectionLost
  case postgresApplyFailed
  case postgresNotAColumn
  case postgresWriteRefused
  case postgresFollowing
  case postgresSomeIDs
  case postgresFollowingAgain
  case postgresUnkeyed
  case postgresLogNotPruned
  case serviceMaxLagNegative
  case serviceTableNotYetServed
  case serviceDatasetFromTable
  case servePostgresHelp
  case serveTableHelp
  case serveGeometryHelp
  case serveIdHelp
  case servePropertiesHelp
  case gdeltAnswered
  case gdeltNotItsJSON
  case gdeltOff
  case noRouteGDELTOff
  case noFeedsFor
  case nameTheCountries
  case withZoom
  case listAnd
  case listOr
  case countriesTakes
  case nearTakes
  case clusterNeedsZoom
  case zoomNotANumber
  case clusterIdShape
  case clusterIdTooLarge
  case categoryAndCategories
  case categoriesTakes
  case pageSizeFlag
  case unknownCountry
  case unknownWorldCountry
  case ambiguousCountry
  case andMore
  case serviceNothingAt
  case serviceNoNews
  case serviceNoCache
  case serveNoCacheWarning
  case serviceRequestFailed
  case serviceFailed
  case serviceUnknownDataset
  case serviceUnknownParameter
  case serviceParameterTwice
  case serviceGiveLatLon
  case serviceWholeNumber
  case serviceDecimal
  case serviceGiveZoom
  case serviceGiveTile
  case serveFavouriteLeftOut
  case serveFavouritesUnchecked
  case formatNotValid
  case formatEndsTooEarly
  case formatEndsInsideValue
  case formatExpectedMemberName
  case formatExpectedColon
  case formatNulByte
  case formatLineTooLong
  case formatCollectionStart
  case formatNoFeaturesMember
  case formatFeaturesArray
  case formatBetweenFeatures
  case formatBetweenMembers
  case formatTextAfterCollection
  case jsonAt
  case jsonBetweenMembers
  case jsonBetweenItems
  case jsonTextAfterValue
  case jsonTooDeep
  case jsonEndsBeforeValue
  case jsonUnexpectedCharacter
  case jsonUnexpectedWord
  case jsonEndsInsideObject
  case jsonEndsInsideArray
  case jsonNumberDigits
  case jsonNumberLeadingZero
  case jsonFractionDigits
  case jsonExponentDigits
  case jsonEndsInsideString
  case jsonStringNotUTF8
  case jsonControlCharacter
  case jsonEndsInsideEscape
  case jsonLoneSurrogate
  case jsonEscapeNotCharacter
  case jsonUnknownEscape
  case jsonEscapeHexDigits
  case coordinateLatitudeOutside
  case coordinateLongitudeOutside
  case coordinateLatitudeNotNumber
  case coordinateLongitudeNotNumber
  case coordinateLatitudeNotFinite
  case coordinateLongitudeNotFinite
  case coordinateSentence
  case coordinateABox
  case coordinateBox
  case coordinateZoom
  case coordinateATile
  case coordinateTile
  case coordinateTileOffMap
  case fileCannotOpen
  case fileCannotRead
  case fileIsDirectory
  case fileCannotWrite
  case fileCannotReadBack
  case featuresJSONArray
  case featuresParquet
  case featuresNoPoints
  case featuresWrongType
  case featuresNotCollection
  case featureNotObject
  case featureTwoIDs
  case featurePointNotNumeric
  case featureBadPoint
  case csvLineNotUTF8
  case csvLoneCarriageReturn
  case csvNoColumns
  case csvTooFewFields
  case csvLatitudeNotNumber
  case csvLongitudeNotNumber
  case csvOutside
  case filterNotJSON
  case filterNotATest
  case filterTooDeep
  case filterObject
  case filterNoOperator
  case filterOneArgument
  case filterArguments
  case filterPropertyName
  case filterArgumentTest
  case filterUnknownOperator
  case settingsFix
  case settingsCannotOpen
  case settingsNotRegular
  case settingsTooLarge
  case settingsCannotRead
  case settingsNotUTF8
  case settingsNulByte
  case settingsNotTOMLLine
  case settingsNotTOML
  case settingsTable
  case settingsArrayValue
  case settingsTableValue
  case settingsUnreadableLine
  case settingsNotKeyValue
  case settingsValueNUL
  case settingsValueNotWhole
  case settingsValueType
  case settingsCannotEdit
  case settingsCannotRemove
  case settingsFoundIn
  case theSettingsFile
  case writeFailed
  case writeStepFolder
  case writeStepTemporary
  case writeStepWrite
  case writeStepFollowingLink
  case writeStepSync
  case writeStepRename
  case writeStepOpenFolder
  case writeStepSyncFolder
  case feedsURLTooLong
  case feedsNotURL
  case feedsCannotRead
  case feedsNotRegular
  case feedsTooLarge
  case feedsNotUTF8
  case feedsBadLine
  case feedsLinePlace
  case theFeedsFile
  case httpInvalidURL
  case httpCannotResolve
  case httpRefused
  case httpReset
  case httpTimedOut
  case httpTLS
  case httpTooLarge
  case httpTooManyRedirects
  case httpRedirectRefused
  case httpInvalidHeader
  case httpCancelled
  case httpFailed
  case httpShutDown
  case httpNoThread
  case curlCannotLoad
  case curlLacks
  case curlCannotInit
  case curlNoTransferLoop
  case curlRefusedOption
  case curlLoopFailed
  case cacheForeign
  case cacheCannotUse
  case cacheMovedAside
  case cacheNoneMade
  case cacheNotSaved
  case cacheNotCounted
  case gdeltHeadlinesOf
  case theFeed
  case mbtilesCannotCreate
  case mbtilesNotAFile
  case mbtilesASymbolicLink
  case mbtilesAFolder
  case mbtilesAFIFO
  case mbtilesADevice
  case mbtilesNotRegular
  case mbtilesIsTheInput
  case mbtilesCannotMove
  case mbtilesFailed
  case mbtilesNoDatabase
  case mbtilesStepPrepare
  case mbtilesStepMetadata
  case mbtilesStepTile
  case mbtilesStepSetUp
  case outOfMemory
  case tilesGzipCannotStart
  case tilesGzipFailed
  case feedDeclaresEntity
  case feedNotWellFormed
  case feedNoReason
  case feedNotAFeed
  case feedEmpty
  case feedTooLarge
  case feedNoParser
  case staleOffline
  case staleBudgetSpent
  case staleAfterError
  case staleFeedOffline
  case staleFeed
  case newsapiMalformedOne
  case newsapiMalformed
  case gdeltMalformedOne
  case gdeltMalformed
  case gdeltTimespan
  case newsapiOtherProvider
  case newsapiRequest
  case curlCannotCreateTransfer
  case curlCannotStartTransfer
  case curlLoadProblem
  case xmlCannotLoad
  case xmlLacks
  case clusterTooManyPoints
  case searchDomainShape
  case serviceUnknownCountry
  case serviceUnknownWorldCountry
  case serviceNewsCountriesValue
  case batchNulByte
  case batchRowFailed
  case batchRowTooLong
  case batchRowCarriageReturn
  case batchRowOneField
  case batchRowFields
  case batchRowLatitudeNotNumber
  case batchRowLongitudeNotNumber
  case theInput
  case theRequestBody
  case batchHeaderColumns
  case batchHeaderColumnsOnLine

  /// The English and French templates; `{1}`, `{2}` … are the arguments.
  public var texts: (en: String, fr: String) {
    switch self {
    // MARK: The command line: the root command and what every command shares
    case .rootAbstract:
      (
        "Find the news country for a place, exactly and fast.",
        "Trouver le pays d'actualité d'un lieu, exactement et vite."
      )
    case .exitStatusDiscussion:
      (
        """
        EXIT STATUS (sysexits): 0 success; 1 nothing to get or remove (config get of a setting not set, feeds \
        remove of a feed not listed); 64 a bad command line; 65 bad data (a malformed file, failed batch rows, \
        the good ones still written; a countries query that matches none); 69 the network or the service \
        failed; 73 an output file that cannot be created; 74 a read or write failed; 75 try later (quota, \
        request budget, a locked cache); 77 the service rejected the key; 78 a configuration problem (no key, a \
        bad setting); 130 and 143 interrupted.
        """,
        """
        CODE DE SORTIE (sysexits) : 0 succès ; 1 rien à lire ou à retirer (config get d'un réglage non réglé, \
        feeds remove d'un flux absent) ; 64 une ligne de commande erronée ; 65 des données erronées (un fichier \
        mal formé, des lignes de lot en échec, les bonnes tout de même écrites ; une requête countries sans \
        résultat) ; 69 le réseau ou le service a échoué ; 73 un fichier de sortie impossible à créer ; 74 une \
        lecture ou une écriture a échoué ; 75 réessayer plus tard (quota, budget de requêtes, cache \
        verrouillé) ; 77 le service a refusé la clé ; 78 un problème de configuration (pas de clé, un réglage \
        erroné) ; 130 et 143 interrompu.
        """
      )
    case .rootDiscussion:
      (
        "LANGUAGE: English, or French with --lang fr, the interface-language setting or a French locale "
          + "(LC_ALL, LC_MESSAGES, LANG).",
        "LANGUE : anglais, ou français avec --lang fr, le réglage interface-language ou une locale française "
          + "(LC_ALL, LC_MESSAGES, LANG)."
      )
    case .examplesRoot:
      (
        """
        EXAMPLES:
          newsatlas nearest 48.85 2.35
              The news country nearest to a place (Paris).
          newsatlas headlines --near 48.85,2.35
              Its headlines (from GDELT when no key is set).
          newsatlas serve
              The news map at http://127.0.0.1:8080/ and the HTTP API.
          newsatlas nearest --help
              Each command's options, with examples.
        """,
        """
        EXEMPLES :
          newsatlas nearest 48.85 2.35
              Le pays d'actualité le plus proche d'un lieu (Paris).
          newsatlas headlines --near 48.85,2.35
              Ses titres (de GDELT quand aucune clé n'est réglée).
          newsatlas serve
              La carte des actualités sur http://127.0.0.1:8080/ et l'API HTTP.
          newsatlas nearest --help
              Les options de chaque commande, avec des exemples.
        """
      )
    case .examplesNearest:
      (
        """
        EXAMPLES:
          newsatlas nearest 48.85 2.35
              The news country nearest to Paris, and how far its marker is.
          newsatlas nearest -33.87 151.21 --count 3 --format json
              Sydney's three nearest news countries, as JSON.
          newsatlas nearest --input places.csv --format jsonl > nearest.jsonl
              One answer per latitude,longitude row; a bad row says why.
          newsatlas nearest 48.85 2.35 --points shops.geojson --count 5
              The five points of your own file nearest to a place.
        """,
        """
        EXEMPLES :
          newsatlas nearest 48.85 2.35
              Le pays d'actualité le plus proche de Paris, à quelle distance.
          newsatlas nearest -33.87 151.21 --count 3 --format json
              Les trois pays d'actualité les plus proches de Sydney, en JSON.
          newsatlas nearest --input places.csv --format jsonl > nearest.jsonl
              Une réponse par ligne latitude,longitude ; une erreur dit pourquoi.
          newsatlas nearest 48.85 2.35 --points shops.geojson --count 5
              Les cinq points de votre fichier les plus proches d'un lieu.
        """
      )
    case .examplesResolve:
      (
        """
        EXAMPLES:
          newsatlas resolve 40.4 -3.7
              The country a place is in, and the news country that serves it.
          newsatlas resolve 48.85 2.35 --format json
              The same as JSON.
          newsatlas resolve --input places.csv > resolved.csv
              Every latitude,longitude row of a file, resolved.
        """,
        """
        EXEMPLES :
          newsatlas resolve 40.4 -3.7
              Le pays où est un lieu, et le pays d'actualité qui le sert.
          newsatlas resolve 48.85 2.35 --format json
              La même chose en JSON.
          newsatlas resolve --input places.csv > resolved.csv
              Chaque ligne latitude,longitude d'un fichier, résolue.
        """
      )
    case .examplesClusters:
      (
        """
        EXAMPLES:
          newsatlas clusters --zoom 2
              The 54 markers as a map at zoom 2 clusters them.
          newsatlas clusters --expansion-zoom 121
              The zoom at which cluster 121 splits.
          newsatlas clusters --points shops.csv --zoom 10 --bbox 2.2,48.8,2.5,48.9
              Your points' clusters in a box, at zoom 10.
          newsatlas clusters --tile 2/2/1
              Map tile 2/2/1's clusters, in tile coordinates.
        """,
        """
        EXEMPLES :
          newsatlas clusters --zoom 2
              Les 54 marqueurs regroupés comme sur une carte au zoom 2.
          newsatlas clusters --expansion-zoom 121
              Le zoom où le groupe 121 se divise.
          newsatlas clusters --points shops.csv --zoom 10 --bbox 2.2,48.8,2.5,48.9
              Les groupes de vos points dans un cadre, au zoom 10.
          newsatlas clusters --tile 2/2/1
              Les groupes de la tuile 2/2/1, en coordonnées de tuile.
        """
      )
    case .examplesServe:
      (
        """
        EXAMPLES:
          newsatlas serve
              The news map at http://127.0.0.1:8080/ and the HTTP API.
          newsatlas serve --points shops=shops.geojson --port 9000
              Your points as dataset shops: clusters, tiles, TileJSON.
          newsatlas serve --datasets-dir data --write-token-file token
              Datasets written over HTTP, kept across restarts.
        """,
        """
        EXEMPLES :
          newsatlas serve
              La carte des actualités sur http://127.0.0.1:8080/ et l'API HTTP.
          newsatlas serve --points shops=shops.geojson --port 9000
              Vos points comme jeu shops : groupes, tuiles, TileJSON.
          newsatlas serve --datasets-dir data --write-token-file token
              Des jeux écrits par HTTP, gardés d'un démarrage à l'autre.
        """
      )
    case .examplesTiles:
      (
        """
        EXAMPLES:
          newsatlas tiles --out markers.mbtiles
              The 54 markers' clustered vector tiles as MBTiles.
          newsatlas tiles --points shops.csv --out shops.pmtiles --max-zoom 14
              Your points as a PMTiles archive, zoom 0 to 14.
        """,
        """
        EXEMPLES :
          newsatlas tiles --out markers.mbtiles
              Les tuiles vectorielles groupées des 54 marqueurs en MBTiles.
          newsatlas tiles --points shops.csv --out shops.pmtiles --max-zoom 14
              Vos points en archive PMTiles, zooms 0 à 14.
        """
      )
    case .examplesCountries:
      (
        """
        EXAMPLES:
          newsatlas countries
              The 54 news countries: code, names, marker, language.
          newsatlas countries allemagne
              One by code or name, English or French, accents optional.
        """,
        """
        EXEMPLES :
          newsatlas countries
              Les 54 pays d'actualité : code, noms, marqueur, langue.
          newsatlas countries allemagne
              Un pays par code ou nom, anglais ou français, accents facultatifs.
        """
      )
    case .examplesHeadlines:
      (
        """
        EXAMPLES:
          newsatlas headlines --country fr
              France's headlines (from GDELT when no key is set).
          newsatlas headlines --near 48.85,2.35 --format json
              The headlines of a place's news country, as JSON.
          newsatlas headlines --cluster 121 --zoom 2 --dry-run
              The requests for every country of a map cluster; none sent.
          newsatlas headlines --provider feeds --feed https://example.org/rss.xml
              The articles of one RSS or Atom feed.
        """,
        """
        EXEMPLES :
          newsatlas headlines --country fr
              Les titres de la France (de GDELT sans clé réglée).
          newsatlas headlines --near 48.85,2.35 --format json
              Les titres du pays d'actualité d'un lieu, en JSON.
          newsatlas headlines --cluster 121 --zoom 2 --dry-run
              Les requêtes de chaque pays d'un groupe de la carte ; rien d'envoyé.
          newsatlas headlines --provider feeds --feed https://example.org/rss.xml
              Les articles d'un flux RSS ou Atom.
        """
      )
    case .examplesSearch:
      (
        """
        EXAMPLES:
          newsatlas search climate --language fr
              Articles in French about the climate (a NewsAPI key).
          newsatlas search '"open data"' --from 2026-11-01 --sort-by publishedAt
              An exact phrase since a date, newest first.
        """,
        """
        EXEMPLES :
          newsatlas search climate --language fr
              Des articles en français sur le climat (une clé NewsAPI).
          newsatlas search '"open data"' --from 2026-11-01 --sort-by publishedAt
              Une expression exacte depuis une date, les plus récents d'abord.
        """
      )
    case .examplesSources:
      (
        """
        EXAMPLES:
          newsatlas sources --country fr
              NewsAPI's sources in France (a NewsAPI key).
          newsatlas sources bbc
              Sources whose id or name contains bbc.
        """,
        """
        EXEMPLES :
          newsatlas sources --country fr
              Les sources de NewsAPI en France (une clé NewsAPI).
          newsatlas sources bbc
              Les sources dont l'identifiant ou le nom contient bbc.
        """
      )
    case .examplesFeeds:
      (
        """
        EXAMPLES:
          newsatlas feeds add fr https://www.lemonde.fr
              Find a site's feed and keep it for France.
          newsatlas feeds check
              Fetch every kept feed once: status, items, newest date.
          newsatlas feeds list
              The kept feeds, by country.
        """,
        """
        EXEMPLES :
          newsatlas feeds add fr https://www.lemonde.fr
              Trouver le flux d'un site et le garder pour la France.
          newsatlas feeds check
              Lire chaque flux gardé : état, articles, date la plus récente.
          newsatlas feeds list
              Les flux gardés, par pays.
        """
      )
    case .examplesConfig:
      (
        """
        EXAMPLES:
          newsatlas config set country fr
              Headlines for France when no country is named.
          newsatlas config set api-key -
              The NewsAPI key from standard input, kept out of ps.
          newsatlas config show
              Every setting, its value and where it comes from.
        """,
        """
        EXEMPLES :
          newsatlas config set country fr
              Les titres de la France quand aucun pays n'est nommé.
          newsatlas config set api-key -
              La clé NewsAPI depuis l'entrée standard, hors de ps.
          newsatlas config show
              Chaque réglage, sa valeur et sa provenance.
        """
      )
    case .examplesQuota:
      (
        """
        EXAMPLES:
          newsatlas quota
              NewsAPI requests sent in the last 24 and 12 hours.
          newsatlas quota --lang fr
              The same in French, dates as France writes them.
        """,
        """
        EXEMPLES :
          newsatlas quota
              Les requêtes NewsAPI envoyées ces dernières 24 et 12 heures.
          newsatlas quota --lang en
              La même chose en anglais.
        """
      )
    case .exitStatusPointer:
      (
        "EXIT STATUS: as sysexits(3); 'newsatlas --help' lists them.",
        "CODE DE SORTIE : selon sysexits(3) ; 'newsatlas --help' les liste."
      )
    case .countriesColumns:
      ("CODE|NAME|FRENCH NAME|LATITUDE|LONGITUDE|LANGUAGE", "CODE|NOM ANGLAIS|NOM|LATITUDE|LONGITUDE|LANGUE")
    case .configColumns: ("SETTING|VALUE|FROM", "RÉGLAGE|VALEUR|SOURCE")
    case .seeHelp: ("{1} See 'newsatlas help'.", "{1} Voir 'newsatlas help'.")
    case .colorHelp:
      (
        "Colour: never, auto (on a terminal, unless NO_COLOR is set) or always. (default: auto)",
        "Couleur : never, auto (sur un terminal, sauf si NO_COLOR est défini) ou always. (par défaut : auto)"
      )
    case .langHelp:
      (
        "Language of messages, help and dates: en or fr (default: the interface-language setting, else fr "
          + "when LC_ALL, LC_MESSAGES or LANG starts with fr).",
        "Langue des messages, de l'aide et des dates : en ou fr (par défaut : le réglage interface-language, "
          + "sinon fr quand LC_ALL, LC_MESSAGES ou LANG commence par fr)."
      )
    case .standardOutputFailed:
      ("Could not write to standard output: {1}.", "Impossible d'écrire sur la sortie standard : {1}.")
    case .formatTextOrJSON: ("Output format: text or json.", "Format de sortie : text ou json.")
    case .unknownOption:
      (
        "Unknown option '{1}'; 'newsatlas {2} --help' lists the options.",
        "Option inconnue '{1}' ; 'newsatlas {2} --help' liste les options."
      )
    case .eitherPlaceOrInput:
      ("Give either LAT LON or --input FILE, not both.", "Donnez LAT LON ou --input FICHIER, pas les deux.")
    case .tooManyCoordinates:
      (
        "Give one latitude and one longitude, not {1} values.",
        "Donnez une latitude et une longitude, pas {1} valeurs."
      )
    case .longitudeMissing:
      ("Give the longitude after the latitude {1}.", "Donnez la longitude après la latitude {1}.")
    case .placeMissing:
      (
        "Give a latitude and a longitude (for example: {1} 48.85 2.35), or --input FILE.",
        "Donnez une latitude et une longitude (par exemple : {1} 48.85 2.35), ou --input FICHIER."
      )
    case .threadsHelp:
      (
        "Cores that answer --input rows (default: all); the output is the same.",
        "Cœurs qui répondent aux lignes de --input (par défaut : tous) ; la sortie est la même."
      )
    case .threadsRange: ("--threads is 1 to 256, not {1}.", "--threads va de 1 à 256, pas {1}.")
    case .batchFormat:
      (
        "With --input the format is csv or jsonl, not {1}.",
        "Avec --input le format est csv ou jsonl, pas {1}."
      )
    case .batchFailedRows:
      (
        "{1} of {2} rows failed (the first on line {3}); their error column says why.",
        "{1} lignes sur {2} ont échoué (la première à la ligne {3}) ; leur colonne error dit pourquoi."
      )
    case .batchFailedRowsJSONL:
      (
        "{1} of {2} rows failed (the first on line {3}); their \"error\" member says why.",
        "{1} lignes sur {2} ont échoué (la première à la ligne {3}) ; leur membre \"error\" dit pourquoi."
      )
    // One failed row: French agrees in number, English says it as for several.
    case .batchOneFailedRow:
      (
        "{1} of {2} rows failed (the first on line {3}); their error column says why.",
        "{1} ligne sur {2} a échoué (à la ligne {3}) ; sa colonne error dit pourquoi."
      )
    case .batchOneFailedRowJSONL:
      (
        "{1} of {2} rows failed (the first on line {3}); their \"error\" member says why.",
        "{1} ligne sur {2} a échoué (à la ligne {3}) ; son membre \"error\" dit pourquoi."
      )

    // MARK: nearest
    case .nearestAbstract:
      (
        "Find the news countries (or your own points) nearest to a place by great-circle distance.",
        "Trouver les pays d'actualité (ou vos propres points) les plus proches d'un lieu, par distance "
          + "orthodromique."
      )
    case .nearestDiscussion:
      (
        "Give LAT LON for one place, or --input FILE (or - for standard input) with one latitude,longitude per "
          + "line to answer millions of places in one run; bad rows get an error row and the exit status 65.",
        "Donnez LAT LON pour un lieu, ou --input FICHIER (ou - pour l'entrée standard) avec une "
          + "latitude,longitude par ligne pour répondre à des millions de lieux en une fois ; une ligne erronée "
          + "reçoit une ligne d'erreur et le code de sortie 65."
      )
    case .nearestPlaceHelp:
      (
        "Latitude (degrees north, -90 to 90) and longitude (degrees east, -180 to 180): LAT LON or LAT,LON.",
        "Latitude (degrés nord, -90 à 90) et longitude (degrés est, -180 à 180) : LAT LON ou LAT,LON."
      )
    case .nearestCountHelp:
      ("How many neighbours to list, nearest first.", "Combien de voisins lister, le plus proche d'abord.")
    case .nearestMaxKmHelp:
      (
        "List only neighbours within this many kilometres.",
        "Ne lister que les voisins à moins de tant de km."
      )
    case .nearestFormatHelp:
      (
        "Output format: text, json or geojson for one place; csv or jsonl with --input.",
        "Format de sortie : text, json ou geojson pour un lieu ; csv ou jsonl avec --input."
      )
    case .nearestPointsHelp:
      (
        "Search your own points instead: a GeoJSON FeatureCollection of Points, or CSV with latitude and "
          + "longitude columns.",
        "Chercher plutôt parmi vos propres points : une FeatureCollection GeoJSON de Points, ou un CSV avec des "
          + "colonnes latitude et longitude."
      )
    case .nearestInputHelp:
      (
        "Answer every latitude,longitude line of this file (- for standard input), in order.",
        "Répondre à chaque ligne latitude,longitude de ce fichier (- pour l'entrée standard), dans l'ordre."
      )
    case .nearestCountRange:
      ("--count must be 1 or more, not {1}.", "--count doit valoir 1 ou plus, pas {1}.")
    case .nearestMaxKmRange:
      (
        "--max-km must be a distance of 0 kilometres or more, not {1}.",
        "--max-km doit être une distance de 0 kilomètre ou plus, pas {1}."
      )
    case .nearestCountWithCSV:
      (
        "--count above 1 needs --format jsonl with --input; csv has one row per input line.",
        "--count au-delà de 1 demande --format jsonl avec --input ; csv a une ligne par ligne d'entrée."
      )
    case .nearestOnePlaceFormat:
      (
        "For one place the format is text, json or geojson; csv and jsonl go with --input.",
        "Pour un lieu le format est text, json ou geojson ; csv et jsonl vont avec --input."
      )
    case .nearestNothingWithin: ("Nothing within {1} km of {2}, {3}.", "Rien à moins de {1} km de {2}, {3}.")
    case .nearestBearing: ("bearing", "cap")

    // MARK: resolve
    case .resolveAbstract:
      (
        "Resolve a place to a news country: the one it is in, else the nearest.",
        "Trouver le pays d'actualité d'un lieu : celui où il se trouve, sinon le plus proche."
      )
    case .resolveDiscussion:
      (
        "A place inside one of the news countries' borders, or within 12 nautical miles of their coasts, "
          + "resolves to that country, even when another country's marker is nearer; anywhere else resolves to "
          + "the nearest marker by great-circle distance. The news countries are every country GDELT covers "
          + "(237), or NewsAPI's 54 with --news-countries newsapi or the provider setting newsapi. Borders: "
          + "Natural Earth 1:10m admin-0 (public domain), compiled in. --input FILE (or -) resolves one "
          + "latitude,longitude per line, as nearest does.",
        "Un lieu à l'intérieur des frontières d'un des pays d'actualité, ou à moins de 12 milles nautiques de "
          + "ses côtes, revient à ce pays, même quand le marqueur d'un autre pays est plus proche ; partout "
          + "ailleurs, au marqueur le plus proche par distance orthodromique. Les pays d'actualité sont tous "
          + "ceux que couvre GDELT (237), ou les 54 de NewsAPI avec --news-countries newsapi ou le réglage "
          + "provider newsapi. Frontières : Natural Earth 1:10m admin-0 (domaine public), incluses dans le "
          + "programme. --input FICHIER (ou -) traite une latitude,longitude par ligne, comme nearest."
      )
    case .resolvePlaceHelp:
      (
        "Latitude and longitude in degrees: LAT LON or LAT,LON.",
        "Latitude et longitude en degrés : LAT LON ou LAT,LON."
      )
    case .newsCountriesHelp:
      (
        "The news countries: newsapi (NewsAPI's 54) or world (every country GDELT covers: Madrid is in Spain). "
          + "By default world, or newsapi when the provider setting is newsapi.",
        "Les pays d'actualité : newsapi (les 54 de NewsAPI) ou world (tous les pays que couvre GDELT : Madrid "
          + "est en Espagne). Par défaut world, ou newsapi quand le réglage provider vaut newsapi."
      )
    case .newsCountriesValue:
      (
        "--news-countries takes newsapi or world, not '{1}'.",
        "--news-countries prend newsapi ou world, pas '{1}'."
      )
    case .resolveFormatHelp:
      (
        "Output format: text or json for one place; csv or jsonl with --input.",
        "Format de sortie : text ou json pour un lieu ; csv ou jsonl avec --input."
      )
    case .resolveInputHelp:
      (
        "Resolve every latitude,longitude line of this file (- for standard input).",
        "Traiter chaque ligne latitude,longitude de ce fichier (- pour l'entrée standard)."
      )
    case .resolveOnePlaceFormat:
      (
        "For one place the format is text or json; csv and jsonl go with --input.",
        "Pour un lieu le format est text ou json ; csv et jsonl vont avec --input."
      )
    case .resolveInside: ("inside", "à l'intérieur")
    case .resolveSea: ("territorial-sea", "mer territoriale")
    case .resolveNearest: ("nearest", "le plus proche")
    case .resolveIn: ("in {1}", "dans {1}")
    case .resolveSeparator: ("; ", " ; ")
    case .resolveMarkerAway: ("marker {1} km away", "marqueur à {1} km")

    // MARK: countries
    case .countriesAbstract:
      (
        "List the 54 news countries, or those matching a code or an English or French name.",
        "Lister les 54 pays d'actualité, ou ceux qui correspondent à un code ou à un nom anglais ou français."
      )
    case .countriesQueryHelp:
      (
        "A code, or any part of an English or French name, any case, accents optional (\"egypte\" and \"gypt\" "
          + "find Égypte); names that start with it come first.",
        "Un code, ou toute partie d'un nom anglais ou français, casse et accents indifférents (\"egypte\" et "
          + "\"gypt\" trouvent Égypte) ; les noms qui commencent par lui viennent d'abord."
      )
    case .countriesNoMatch:
      (
        "No news country matches '{1}'; try a code such as fr or a name such as Égypte.",
        "Aucun pays d'actualité ne correspond à '{1}' ; essayez un code comme fr ou un nom comme Égypte."
      )

    // MARK: clusters, tiles and their options
    case .clustersAbstract:
      (
        "Cluster points by zoom level exactly as supercluster does, and print GeoJSON.",
        "Regrouper des points par niveau de zoom exactement comme supercluster, et écrire du GeoJSON."
      )
    case .clustersDiscussion:
      (
        "Without --points the input is the 54 news-country markers. Cluster ids, counts, centres and order are "
          + "supercluster 8.0.1's for the same input and options, so map tooling can switch engines without "
          + "changing a stored id.",
        "Sans --points l'entrée est les 54 marqueurs des pays d'actualité. Identifiants, effectifs, centres et "
          + "ordre des groupes sont ceux de supercluster 8.0.1 pour la même entrée et les mêmes options : un "
          + "outil cartographique peut changer de moteur sans changer un identifiant stocké."
      )
    case .clustersZoomHelp:
      (
        "The zoom level; fractions floor, zooms above --max-zoom give the raw points.",
        "Le niveau de zoom ; les fractions sont arrondies vers le bas, au-delà de --max-zoom les points bruts."
      )
    case .clustersBboxHelp:
      (
        "The box to return, as west,south,east,north degrees (default: the world).",
        "Le cadre à renvoyer, en degrés ouest,sud,est,nord (par défaut : le monde)."
      )
    case .clustersPointsHelp:
      (
        "A GeoJSON FeatureCollection or a CSV file (latitude,longitude[,…]); - for standard input.",
        "Une FeatureCollection GeoJSON ou un fichier CSV (latitude,longitude[,…]) ; - pour l'entrée standard."
      )
    case .clustersFilterHelp:
      (
        "Cluster only the features that pass this MapLibre filter expression, as JSON: "
          + "'[\"==\", [\"get\", \"category\"], \"sports\"]' (all, any, !, ==, !=, <, <=, >, >=, in, has, get).",
        "Ne regrouper que les objets qui passent cette expression de filtre MapLibre, en JSON : "
          + "'[\"==\", [\"get\", \"category\"], \"sports\"]' (all, any, !, ==, !=, <, <=, >, >=, in, has, get)."
      )
    case .clustersExpansionZoomHelp:
      ("Print the zoom at which cluster ID splits.", "Écrire le zoom où le groupe ID se divise.")
    case .clustersChildrenHelp:
      (
        "Print the clusters and points cluster ID splits into.",
        "Écrire les groupes et les points en lesquels le groupe ID se divise."
      )
    case .clustersLeavesHelp:
      (
        "Print the input points of cluster ID (see --limit and --offset).",
        "Écrire les points d'entrée du groupe ID (voir --limit et --offset)."
      )
    case .clustersLimitHelp:
      ("With --leaves: how many points (0 means all).", "Avec --leaves : combien de points (0 pour tous).")
    case .clustersOffsetHelp:
      ("With --leaves: how many points to skip first.", "Avec --leaves : combien de points sauter d'abord.")
    case .clustersFormatHelp:
      (
        "Output format: geojson (supercluster's JSON, laid out on a terminal, one line when piped) or text (a "
          + "table for people).",
        "Format de sortie : geojson (le JSON de supercluster, mis en page sur un terminal, en une ligne dans un "
          + "tube) ou text (un tableau à lire)."
      )
    case .clustersColumns:
      ("KIND|ID|POINTS|LATITUDE|LONGITUDE|DETAILS", "TYPE|ID|POINTS|LATITUDE|LONGITUDE|DÉTAILS")
    case .clustersTileColumns: ("KIND|ID|POINTS|X|Y|DETAILS", "TYPE|ID|POINTS|X|Y|DÉTAILS")
    case .clustersKindCluster: ("cluster", "groupe")
    case .clustersKindPoint: ("point", "point")
    case .clustersSplitsAt: ("splits at zoom {1}", "se divise au zoom {1}")
    case .clustersSplitsSentence: ("Cluster {1} splits at zoom {2}.", "Le groupe {1} se divise au zoom {2}.")
    case .clustersTileHelp:
      (
        "Print map tile Z/X/Y in tile coordinates, as supercluster's getTile.",
        "Écrire la tuile Z/X/Y en coordonnées de tuile, comme getTile de supercluster."
      )
    case .clustersNoQuery:
      (
        "Give --zoom Z (or --expansion-zoom, --children, --leaves or --tile) to say what to print.",
        "Donnez --zoom Z (ou --expansion-zoom, --children, --leaves ou --tile) pour dire quoi écrire."
      )
    case .clustersSeveralQueries:
      (
        "Give one of --zoom, --expansion-zoom, --children, --leaves and --tile, not several.",
        "Donnez une seule option parmi --zoom, --expansion-zoom, --children, --leaves et --tile."
      )
    case .clustersBboxWithZoom: ("--bbox goes with --zoom.", "--bbox va avec --zoom.")
    case .clustersLimitOffset:
      ("--limit and --offset must be 0 or more.", "--limit et --offset doivent valoir 0 ou plus.")
    case .clustersIdsFromZoom:
      (
        "{1} Cluster ids come from --zoom output (\"cluster_id\").",
        "{1} Les identifiants de groupe viennent de la sortie de --zoom (\"cluster_id\")."
      )
    case .clusteringSumHelp:
      (
        "Give each cluster the sum of its points' numeric PROP (repeatable).",
        "Donner à chaque groupe la somme de la propriété numérique PROP de ses points (répétable)."
      )
    case .clusteringMinHelp:
      (
        "Give each cluster the smallest of its points' numeric PROP (repeatable).",
        "Donner à chaque groupe la plus petite valeur de PROP parmi ses points (répétable)."
      )
    case .clusteringMaxHelp:
      (
        "Give each cluster the largest of its points' numeric PROP (repeatable).",
        "Donner à chaque groupe la plus grande valeur de PROP parmi ses points (répétable)."
      )
    case .clusteringTwice:
      (
        "The property '{1}' is aggregated twice; give it to one of --sum, --min and --max.",
        "La propriété '{1}' est agrégée deux fois ; donnez-la à une seule de --sum, --min et --max."
      )
    case .clusteringReserved:
      (
        "'{1}' is a cluster property of its own; aggregate another property.",
        "'{1}' est une propriété propre aux groupes ; agrégez une autre propriété."
      )
    case .shapeTitle:
      (
        "Clustering (with --cluster: the options of the map its id came from)",
        "Regroupement (avec --cluster : options de la carte d'où vient son identifiant)"
      )
    case .shapeRadiusHelp: ("Cluster radius in pixels.", "Rayon des groupes en pixels.")
    case .shapeExtentHelp:
      (
        "Tile extent in pixels (the radius is relative to it).",
        "Étendue de tuile en pixels (le rayon s'y rapporte)."
      )
    case .shapeMinZoomHelp: ("The lowest zoom clustered.", "Le plus petit zoom regroupé.")
    case .shapeMaxZoomHelp: ("The highest zoom clustered.", "Le plus grand zoom regroupé.")
    case .shapeMinPointsHelp:
      ("The fewest points that make a cluster.", "Le moins de points qui forment un groupe.")
    case .shapeNodeSizeHelp:
      (
        "Leaf size of the k-d trees (it changes output order, as in supercluster).",
        "Taille des feuilles des arbres k-d (elle change l'ordre de sortie, comme dans supercluster)."
      )
    case .tilesAbstract:
      (
        "Write every non-empty vector tile of zooms --min-zoom...--max-zoom into an MBTiles or PMTiles file.",
        "Écrire chaque tuile vectorielle non vide des zooms --min-zoom...--max-zoom dans un fichier MBTiles ou "
          + "PMTiles."
      )
    case .tilesDiscussion:
      (
        "The tiles serve answers (supercluster's getTile, Mapbox Vector Tile 2.1, one layer), gzipped, in an "
          + "MBTiles 1.3 file (SQLite, TMS rows, json metadata with vector_layers) for static hosting or a tile "
          + "server, or, for a FILE ending in .pmtiles, a PMTiles v3 archive (clustered, gzipped directories, the "
          + "same tiles and metadata) that a static host or an object store serves with range requests. The zooms written are the clustering's own --min-zoom and --max-zoom. Progress goes to "
          + "standard error when it is a terminal. The file is built beside FILE and moved there when complete.",
        "Les tuiles que serve renvoie (getTile de supercluster, Mapbox Vector Tile 2.1, une couche), compressées "
          + "en gzip, dans un fichier MBTiles 1.3 (SQLite, lignes TMS, métadonnées json avec vector_layers) pour "
          + "un hébergement statique ou un serveur de tuiles, ou, pour un FICHIER qui finit par .pmtiles, une "
          + "archive PMTiles v3 (regroupée, répertoires compressés, mêmes tuiles et métadonnées) qu'un hébergement "
          + "statique ou un stockage d'objets sert par requêtes de plages. Les zooms écrits sont --min-zoom et --max-zoom du "
          + "regroupement. La progression s'affiche sur la sortie d'erreur quand c'est un terminal. Le fichier "
          + "est construit à côté de FICHIER et y est déplacé une fois complet."
      )
    case .tilesPointsHelp:
      (
        "A GeoJSON or CSV file of points (default: the 54 markers).",
        "Un fichier GeoJSON ou CSV de points (par défaut : les 54 marqueurs)."
      )
    case .tilesOutHelp:
      (
        "The MBTiles file to write, or a PMTiles archive if it ends in .pmtiles (an existing regular file is "
          + "replaced; not the input).",
        "Le fichier MBTiles à écrire, ou une archive PMTiles s'il finit par .pmtiles (un fichier ordinaire "
          + "existant est remplacé ; pas l'entrée)."
      )
    case .tilesLayerHelp:
      (
        "The tile layer's name (default: the file's name, or markers).",
        "Le nom de la couche (par défaut : le nom du fichier, ou markers)."
      )
    case .tilesFilterHelp:
      (
        "Tile only the features that pass this MapLibre filter expression, as JSON (as clusters --filter).",
        "Ne tuiler que les objets qui passent cette expression de filtre MapLibre, en JSON (comme clusters "
          + "--filter)."
      )
    case .tilesMaxZoom:
      (
        "tiles writes zooms up to 24; --max-zoom {1} is past it.",
        "tiles écrit les zooms jusqu'à 24 ; --max-zoom {1} va au-delà."
      )
    case .tilesLayerName:
      (
        "A layer name is letters, digits, '-' and '_' (64 at most), not '{1}'; give --layer.",
        "Un nom de couche est fait de lettres, de chiffres, de '-' et de '_' (64 au plus), pas '{1}' ; "
          + "donnez --layer."
      )
    case .tilesProgress:
      ("zoom {1} of {2} · {3} tiles · {4}%", "zoom {1} sur {2} · {3} tuiles · {4} %")
    case .tilesRate: ("{1} tiles/s", "{1} tuiles/s")
    case .tilesZoomDone:
      ("zoom {1} of {2} done: {3} tiles so far, {4} s", "zoom {1} sur {2} fini : {3} tuiles jusqu'ici, {4} s")
    case .tilesZoomDoneOne:
      ("zoom {1} of {2} done: 1 tile so far, {3} s", "zoom {1} sur {2} fini : 1 tuile jusqu'ici, {3} s")
    case .tilesClustering: ("clustering {1} points…", "regroupement de {1} points…")
    case .progressRead: ("reading: {1}% of {2} MB", "lecture : {1} % de {2} Mo")
    case .progressRows: ("{1} rows", "{1} lignes")
    case .progressRate: ("{1} MB/s", "{1} Mo/s")
    case .progressLeft: ("about {1} s left", "encore environ {1} s")
    case .tilesSummary:
      (
        "{1} tiles, {2} bytes of gzipped MVT, zooms {3}-{4}, layer {5}, in {6} ({7} s)",
        "{1} tuiles, {2} octets de MVT compressé, zooms {3}-{4}, couche {5}, dans {6} ({7} s)"
      )

    // MARK: serve
    case .serveAbstract:
      (
        "Serve the news map, nearest, resolve, clusters, vector tiles and headlines over HTTP.",
        "Servir la carte des actualités, nearest, resolve, clusters, les tuiles vectorielles et les titres en HTTP."
      )
    case .serveDiscussion:
      (
        "Loads each dataset once (the 54 markers are always there, as markers), then answers on HOST:PORT. Once "
          + "it listens it prints one line, 'newsatlas: serving on http://HOST:PORT', on standard output; it logs "
          + "one line per request on standard error. Port 0 picks a free port. /v1/headlines uses NEWSAPI_KEY "
          + "(or the settings' api-key) through one cache and one request budget for the whole server; --no-news "
          + "turns it off. Datasets written over HTTP (PUT /v1/datasets/NAME, with the write token of "
          + "--write-token-file or NEWSATLAS_WRITE_TOKEN) are kept in --datasets-dir and served again after a "
          + "restart.",
        "Charge chaque jeu de données une fois (les 54 marqueurs sont toujours là, sous le nom markers), puis "
          + "répond sur HÔTE:PORT. Dès l'écoute il écrit une ligne, 'newsatlas: serving on http://HÔTE:PORT', sur "
          + "la sortie standard ; il journalise une ligne par requête sur la sortie d'erreur. Le port 0 en "
          + "choisit un libre. /v1/headlines utilise NEWSAPI_KEY (ou le réglage api-key) avec un seul cache et un "
          + "seul budget de requêtes pour tout le serveur ; --no-news le coupe. Les jeux de données écrits en "
          + "HTTP (PUT /v1/datasets/NOM, avec le jeton d'écriture de --write-token-file ou NEWSATLAS_WRITE_TOKEN) "
          + "sont gardés dans --datasets-dir et servis de nouveau après un redémarrage."
      )
    case .serveHostHelp:
      (
        "The address to listen on (loopback unless told otherwise).",
        "L'adresse d'écoute (boucle locale sauf avis contraire)."
      )
    case .servePortHelp:
      ("The port to listen on (0 picks a free one).", "Le port d'écoute (0 en choisit un libre).")
    case .servePointsHelp:
      (
        "Serve a GeoJSON or CSV file as dataset NAME (letters, digits, '-' and '_'); repeatable.",
        "Servir un fichier GeoJSON ou CSV comme jeu de données NOM (lettres, chiffres, '-' et '_') ; répétable."
      )
    case .serveMaxBodyHelp:
      (
        "The largest batch POST body taken, in MiB (bigger ones get 413).",
        "Le plus grand corps de POST de lot accepté, en Mio (au-delà : 413)."
      )
    case .serveGraceHelp:
      (
        "Seconds requests in flight get to finish after SIGINT or SIGTERM.",
        "Secondes laissées aux requêtes en cours pour finir après SIGINT ou SIGTERM."
      )
    case .serveCorsHelp:
      (
        "Send Access-Control-Allow-Origin: ORIGIN with every answer.",
        "Envoyer Access-Control-Allow-Origin: ORIGINE avec chaque réponse."
      )
    case .serveThreadsHelp:
      (
        "Cores that answer each batch POST's rows (default: all); the answers are the same.",
        "Cœurs qui répondent aux lignes de chaque POST de lot (par défaut : tous) ; les réponses sont les mêmes."
      )
    case .serveTileCacheHelp:
      (
        "Encoded tiles kept between requests, in MiB (0 keeps none); the oldest go first.",
        "Tuiles encodées gardées entre les requêtes, en Mio (0 n'en garde aucune) ; les plus anciennes partent "
          + "d'abord."
      )
    case .serveFilterBuildsHelp:
      (
        "Filtered indexes (filter=) built at once, on threads of their own (default: half the cores).",
        "Index filtrés (filter=) construits à la fois, sur des fils à eux (par défaut : la moitié des cœurs)."
      )
    case .serveFilterQueueHelp:
      (
        "Filtered indexes that may wait for a builder; a request for another new filter is a 503 with Retry-After.",
        "Index filtrés qui peuvent attendre leur tour ; une demande d'un autre filtre nouveau reçoit un 503 avec Retry-After."
      )
    case .serveFilterCacheHelp:
      (
        "Filtered indexes (filter=) kept between requests, in MiB (0 keeps none); the least recently used go "
          + "first.",
        "Index filtrés (filter=) gardés entre les requêtes, en Mio (0 n'en garde aucun) ; les moins récemment "
          + "utilisés partent d'abord."
      )
    case .serveMaxFeaturesHelp:
      (
        "The most features one clusters, children or leaves answer holds (more: 422, ask with a bbox).",
        "Le plus d'objets qu'une réponse clusters, children ou leaves contient (au-delà : 422, demandez avec un "
          + "bbox)."
      )
    case .serveIdleTimeoutHelp:
      (
        "Seconds a connection may wait with no request before it is closed.",
        "Secondes qu'une connexion peut attendre sans requête avant d'être fermée."
      )
    case .serveHeaderTimeoutHelp:
      (
        "Seconds a request's head may take to arrive, from its first byte.",
        "Secondes que l'en-tête d'une requête peut mettre à arriver, depuis son premier octet."
      )
    case .serveBodyTimeoutHelp:
      (
        "Seconds a request body may pause between two reads.",
        "Secondes qu'un corps de requête peut marquer de pause entre deux lectures."
      )
    case .serveSendTimeoutHelp:
      (
        "Seconds a client may take none of its answer before it is dropped.",
        "Secondes qu'un client peut rester sans rien lire de sa réponse avant d'être lâché."
      )
    case .serveMaxConnectionsHelp:
      (
        "Connections open at once (default: the open-file limit less 100); more are closed at once.",
        "Connexions ouvertes à la fois (par défaut : la limite de fichiers ouverts moins 100) ; les suivantes "
          + "sont fermées aussitôt."
      )
    case .serveNoNewsHelp:
      ("Serve no headlines (/v1/headlines answers 503).", "Ne servir aucun titre (/v1/headlines répond 503).")
    case .serveLeafletHelp:
      (
        "Where Leaflet is, for the map page at / (Debian's libjs-leaflet puts it here).",
        "Où se trouve Leaflet, pour la page de carte à / (libjs-leaflet de Debian le met ici)."
      )
    case .serveRange: ("{1} is {2} to {3}, not {4}.", "{1} va de {2} à {3}, pas {4}.")
    case .serveSecondsRange: ("{1} is {2} to {3} seconds, not {4}.", "{1} va de {2} à {3} secondes, pas {4}.")
    case .serveMaxConnectionsRange:
      ("--max-connections is 1 or more, not {1}.", "--max-connections vaut 1 ou plus, pas {1}.")
    case .servePointsShape:
      (
        "--points takes NAME=FILE (for example cafes=cafes.geojson), not '{1}'.",
        "--points prend NOM=FICHIER (par exemple cafes=cafes.geojson), pas '{1}'."
      )
    case .serveDatasetName:
      (
        "A dataset name is letters, digits, '-' and '_' (64 at most), not '{1}'.",
        "Un nom de jeu de données est fait de lettres, de chiffres, de '-' et de '_' (64 au plus), pas '{1}'."
      )
    case .serveDatasetTwice:
      (
        "Two datasets are named '{1}'; give each its own name.",
        "Deux jeux de données s'appellent '{1}' ; donnez à chacun son nom."
      )
    case .serveWriteTokenFileHelp:
      (
        "A file (readable by you alone) holding the token that dataset writes must send; else "
          + "NEWSATLAS_WRITE_TOKEN.",
        "Un fichier (lisible par vous seul) contenant le jeton que les écritures de jeux de données doivent "
          + "envoyer ; sinon NEWSATLAS_WRITE_TOKEN."
      )
    case .serveDatasetsDirHelp:
      (
        "Where datasets written over HTTP are kept and read back at start (default: XDG data home's "
          + "newsatlas/datasets).",
        "Où les jeux de données écrits en HTTP sont gardés et relus au démarrage (par défaut : newsatlas/datasets "
          + "du dossier de données XDG)."
      )
    case .serveTokenUnreadable:
      (
        "Cannot read the write token file '{1}' ({2}).",
        "Impossible de lire le fichier du jeton d'écriture '{1}' ({2})."
      )
    case .serveTokenNotRegular:
      (
        "The write token file '{1}' is not a regular file of at most 4 KiB.",
        "Le fichier du jeton d'écriture '{1}' n'est pas un fichier ordinaire d'au plus 4 Kio."
      )
    case .serveTokenReadable:
      (
        "Other users can read the write token file '{1}', so it is not used; run: chmod 600 '{1}'.",
        "D'autres utilisateurs peuvent lire le fichier du jeton d'écriture '{1}', il n'est donc pas utilisé ; "
          + "lancez : chmod 600 '{1}'."
      )
    case .serveTokenFileOrigin: ("The write token file '{1}'", "Le fichier du jeton d'écriture '{1}'")
    case .serveTokenShape:
      (
        "{1} must hold a token of 16 to 1024 visible ASCII characters (for example the output of 'openssl rand "
          + "-hex 32').",
        "{1} doit contenir un jeton de 16 à 1024 caractères ASCII visibles (par exemple la sortie de 'openssl "
          + "rand -hex 32')."
      )
    case .serveDatasetKept:
      (
        "the dataset '{1}' is served as it was last written over HTTP, from '{2}', not from --points.",
        "le jeu de données '{1}' est servi tel qu'il a été écrit en HTTP la dernière fois, depuis '{2}', et non "
          + "depuis --points."
      )
    case .serveDatasetsFolderLocked:
      (
        "Another newsatlas serve ({2}) is using the datasets folder '{1}'; two servers on one folder would "
          + "overwrite each other's writes: stop it, or give this one its own --datasets-dir.",
        "Un autre newsatlas serve ({2}) utilise le dossier de jeux de données '{1}' ; deux serveurs sur un dossier "
          + "écraseraient leurs écritures : arrêtez-le, ou donnez à celui-ci son propre --datasets-dir."
      )
    case .serveDatasetsFolderNotFolder:
      (
        "--datasets-dir '{1}' is {2}, not a folder; give a folder (it is made if it does not exist).",
        "--datasets-dir '{1}' est {2}, pas un dossier ; donnez un dossier (il est créé s'il n'existe pas)."
      )
    case .serveDatasetsFolderUnusable:
      (
        "The datasets folder '{1}' cannot be used: {2}.",
        "Le dossier de jeux de données '{1}' est inutilisable : {2}."
      )
    case .keptNotRegular:
      (
        "'{1}' in the datasets folder is {2}, not a regular file: it is not read, and left as it is.",
        "'{1}' dans le dossier de jeux de données est {2}, pas un fichier ordinaire : il n'est pas lu, et laissé "
          + "tel quel."
      )
    case .keptJournalNotRegular:
      (
        "The kept dataset '{1}' is not served: its journal '{2}' is {3}, not a regular file, so the changes "
          + "answered since its base cannot be read; both are left as they are.",
        "Le jeu de données gardé '{1}' n'est pas servi : son journal '{2}' est {3}, pas un fichier ordinaire, donc "
          + "les modifications répondues depuis sa base ne peuvent être lues ; les deux sont laissés tels quels."
      )
    case .serveCannotServe: ("Cannot serve on {1}:{2}: {3}.", "Impossible de servir sur {1}:{2} : {3}.")
    case .serveAddressInUse:
      (
        "another program listens on that port (address already in use); choose another with --port",
        "un autre programme écoute sur ce port (adresse déjà utilisée) ; choisissez-en un autre avec --port"
      )
    case .serveNoSuchHost:
      (
        "that is no address, and no name an address is found for",
        "ce n'est pas une adresse, ni un nom dont l'adresse se trouve"
      )
    case .serveNotAnAddressHere:
      (
        "that is not an address of this machine; --host takes one of its addresses, 127.0.0.1 or 0.0.0.0",
        "ce n'est pas une adresse de cette machine ; --host prend une de ses adresses, 127.0.0.1 ou 0.0.0.0"
      )

    // MARK: What every news command takes
    case .apiBaseHelp:
      (
        "The service's base URL (default $NEWSATLAS_API_BASE, else {1}).",
        "L'URL de base du service (par défaut $NEWSATLAS_API_BASE, sinon {1})."
      )
    case .timeoutHelp: ("Seconds allowed for each request.", "Secondes accordées à chaque requête.")
    case .concurrencyHelp: ("Requests in flight at once.", "Requêtes en cours à la fois.")
    case .utcHelp:
      (
        "Dates in text as ISO 8601 in UTC (2026-11-24T10:15:00Z), for scripts that parse text.",
        "Dates en texte au format ISO 8601 en UTC (2026-11-24T10:15:00Z), pour les scripts qui lisent le texte."
      )
    case .refreshHelp:
      (
        "Ask the service even when a fresh answer is cached.",
        "Interroger le service même si une réponse fraîche est en cache."
      )
    case .offlineHelp:
      (
        "Answer only from the cache, saying how old each answer is.",
        "Répondre seulement depuis le cache, en disant l'âge de chaque réponse."
      )
    case .forceHelp:
      (
        "Send even when the plan's daily budget is spent.",
        "Envoyer même quand le budget quotidien de l'abonnement est épuisé."
      )
    case .timeoutRange:
      (
        "--timeout must be a number of seconds above 0 and at most a day (86400).",
        "--timeout doit être un nombre de secondes au-dessus de 0 et d'au plus un jour (86400)."
      )
    case .concurrencyRange:
      ("--concurrency must be 1 to 256, not {1}.", "--concurrency doit aller de 1 à 256, pas {1}.")
    case .refreshAndOffline:
      (
        "--refresh asks the service and --offline never does; give one.",
        "--refresh interroge le service et --offline jamais ; donnez l'un des deux."
      )
    case .cacheOfflineOnly: ("{1} --offline answers only from it.", "{1} --offline ne répond que depuis lui.")
    case .cacheNeeded:
      (
        "{1} Without it no request can be counted against the budget, so nothing is sent.",
        "{1} Sans lui aucune requête ne peut être décomptée du budget, donc rien n'est envoyé."
      )
    case .planOverBudgetHint:
      (
        "{1} --dry-run shows the plan; --force sends anyway.",
        "{1} --dry-run montre le plan ; --force envoie quand même."
      )
    case .ownBudgetHint: ("{1} --force sends anyway.", "{1} --force envoie quand même.")

    // MARK: headlines
    case .headlinesAbstract:
      (
        "Fetch headlines for news countries in as few requests as their provider allows.",
        "Récupérer les titres des pays d'actualité en aussi peu de requêtes que leur fournisseur le permet."
      )
    case .headlinesDiscussion:
      (
        "Headlines come from a provider: newsapi, gdelt or feeds; auto (the default) takes, for each country, "
          + "its configured feeds if it has any, else NewsAPI when a key is set and NewsAPI has a route for it, "
          + "else GDELT, which needs no key. NewsAPI's top-headlines?country= now answers only for us. The others "
          + "are served by their sources: several countries share one request of up to 20 sources, split back by "
          + "each article's source, and a country that a shared answer crowds out gets one request of its own. "
          + "--source ID (or the sources setting, your favourite sources) adds their headlines, packed into the "
          + "same requests and counted in the same budget. GDELT packs several countries into one sourcecountry "
          + "query, split back by each article's sourcecountry, at most one request every 5 seconds (across "
          + "processes) and 12 a run. --dry-run prints the plan and how long it takes, and sends nothing. The key "
          + "comes from NEWSAPI_KEY and travels only in a request header to NewsAPI's host.",
        "Les titres viennent d'un fournisseur : newsapi, gdelt ou feeds ; auto (par défaut) prend, pour chaque "
          + "pays, ses flux configurés s'il en a, sinon NewsAPI quand une clé est réglée et que NewsAPI a une "
          + "route pour lui, sinon GDELT, qui ne demande pas de clé. top-headlines?country= de NewsAPI ne répond "
          + "plus que pour us. Les autres pays sont servis par leurs sources : plusieurs pays partagent une "
          + "requête d'au plus 20 sources, répartie ensuite selon la source de chaque article, et un pays évincé "
          + "d'une réponse partagée reçoit sa propre requête. --source ID (ou le réglage sources, vos sources "
          + "favorites) ajoute leurs titres, regroupés dans les mêmes requêtes et comptés dans le même budget. "
          + "GDELT regroupe plusieurs pays dans une requête sourcecountry, répartie selon le sourcecountry de "
          + "chaque article, au plus une requête toutes les 5 secondes (entre processus) et 12 par exécution. "
          + "--dry-run écrit le plan et sa durée, et n'envoie rien. La clé vient de NEWSAPI_KEY et ne voyage que "
          + "dans un en-tête de requête vers l'hôte de NewsAPI."
      )
    case .headlinesCountryHelp:
      (
        "One country: a code (fr) or an English or French name, any case, accents optional (France, Allemagne).",
        "Un pays : un code (fr) ou un nom anglais ou français, casse et accents indifférents (France, Allemagne)."
      )
    case .headlinesCountriesHelp:
      (
        "Several countries, comma-separated codes or names (fr,de or France,Germany).",
        "Plusieurs pays, codes ou noms séparés par des virgules (fr,de ou France,Allemagne)."
      )
    case .headlinesNearHelp:
      (
        "The news country of a place: the one it is in, else the nearest (as resolve).",
        "Le pays d'actualité d'un lieu : celui où il se trouve, sinon le plus proche (comme resolve)."
      )
    case .headlinesClusterHelp:
      (
        "Every country of a cluster of the 54 markers (with --zoom, and the clustering options of its map).",
        "Chaque pays d'un groupe des 54 marqueurs (avec --zoom, et les options de regroupement de sa carte)."
      )
    case .headlinesZoomHelp:
      ("The zoom of the map --cluster is on (0 to 31).", "Le zoom de la carte d'où vient --cluster (0 à 31).")
    case .headlinesAllHelp: ("All 54 countries.", "Les 54 pays.")
    case .headlinesCategoryHelp:
      (
        "One category (business, entertainment, general, health, science, sports, technology).",
        "Une catégorie (business, entertainment, general, health, science, sports, technology)."
      )
    case .headlinesCategoriesHelp:
      (
        "Several categories of each country, comma-separated (business,sports), or all seven.",
        "Plusieurs catégories de chaque pays, séparées par des virgules (business,sports), ou all pour les sept."
      )
    case .headlinesPageSizeHelp:
      ("Articles per country, 1 to 100 (default {1}).", "Articles par pays, 1 à 100 (par défaut {1}).")
    case .headlinesSourceHelp:
      (
        "A NewsAPI source's headlines as well (its id, as sources lists; repeatable; default the sources "
          + "setting when no country is named).",
        "Les titres d'une source NewsAPI en plus (son identifiant, comme sources les liste ; répétable ; par "
          + "défaut le réglage sources quand aucun pays n'est nommé)."
      )
    case .headlinesSearchFallbackHelp:
      (
        "Search everything for countries that have no sources (one request each).",
        "Chercher dans everything pour les pays sans sources (une requête chacun)."
      )
    case .headlinesProbeHelp:
      (
        "Ask top-headlines?country= again, even where the service is known to answer it empty.",
        "Redemander top-headlines?country=, même là où le service répond vide."
      )
    case .headlinesDryRunHelp:
      (
        "Print the requests the command would send, and send nothing.",
        "Écrire les requêtes que la commande enverrait, et n'envoyer rien."
      )
    case .headlinesProviderHelp:
      (
        "Where headlines come from: auto, newsapi, gdelt or feeds (default the provider setting, else auto).",
        "D'où viennent les titres : auto, newsapi, gdelt ou feeds (par défaut le réglage provider, sinon auto)."
      )
    case .headlinesFeedHelp:
      (
        "An RSS or Atom feed for this run alone, in place of the feeds file's (repeatable); it answers every "
          + "country asked, with --provider feeds or auto.",
        "Un flux RSS ou Atom pour cette exécution seule, à la place de ceux du fichier de flux (répétable) ; il "
          + "répond pour chaque pays demandé, avec --provider feeds ou auto."
      )
    case .headlinesProviderFlag:
      ("'{1}' is not a provider; use one of {2}.", "'{1}' n'est pas un fournisseur ; utilisez {2}.")
    case .headlinesFeedNeedsFeeds:
      (
        "--feed is read by the feeds provider: use it with --provider feeds or auto.",
        "--feed est lu par le fournisseur feeds : utilisez-le avec --provider feeds ou auto."
      )
    case .headlinesSourceNeedsNewsAPI:
      (
        "--source asks NewsAPI for a source's headlines: use it with --provider newsapi or auto.",
        "--source demande à NewsAPI les titres d'une source : utilisez-le avec --provider newsapi ou auto."
      )
    case .headlinesKeepFavourite:
      (
        "{1} (or sources with --source ID), or keep a favourite with 'newsatlas config set country fr' or "
          + "'newsatlas config set sources bbc-news'.",
        "{1} (ou des sources avec --source ID), ou gardez un favori avec 'newsatlas config set country fr' ou "
          + "'newsatlas config set sources bbc-news'."
      )
    case .headlinesFavouriteSourcesRefused:
      (
        "The sources setting ({1}) cannot be used: {2} Change it with 'newsatlas config set sources ID,…' or "
          + "remove it with 'newsatlas config unset sources'.",
        "Le réglage sources ({1}) est inutilisable : {2} Changez-le avec 'newsatlas config set sources ID,…' ou "
          + "retirez-le avec 'newsatlas config unset sources'."
      )
    case .headlinesAllFailed: ("All {1} results failed", "Les {1} résultats ont échoué")
    case .headlinesSomeFailed: ("{1} of {2} results failed", "{1} résultats sur {2} ont échoué")
    case .headlinesOtherAbove: ("; the other one is above", "; l'autre est plus haut")
    case .headlinesOthersAbove: ("; the other {1} are above", "; les {1} autres sont plus haut")
    case .headlinesErrorsInJSON:
      ("{1} (their errors are in the JSON); {2}", "{1} (leurs erreurs sont dans le JSON) ; {2}")
    case .headlinesNoHeadlines: ("no headlines: {1}", "aucun titre : {1}")
    case .headlinesNothingToAsk: ("nothing to ask", "rien à demander")
    case .headlinesArticles: ("{1} articles", "{1} articles")
    case .headlinesOneArticle: ("1 article", "1 article")
    case .headlinesViaTop: ("via top headlines", "par les gros titres")
    case .headlinesViaSources: ("via its sources", "par ses sources")
    case .headlinesViaSearch: ("via a search of its name", "par une recherche de son nom")
    case .headlinesViaGDELT: ("via GDELT", "par GDELT")
    case .headlinesViaFeeds: ("via its feeds", "par ses flux")
    case .headlinesViaSource: ("via the source", "par la source")
    case .planHeading: ("Plan for {1}, {2} each:", "Plan pour {1}, {2} chacun :")
    case .planResults: ("{1} results", "{1} résultats")
    case .planOneResult: ("1 result", "1 résultat")
    case .planCached: ("cached", "en cache")
    case .planSend: ("send", "envoyer")
    case .planLater: ("later", "plus tard")
    case .planNone: ("none", "aucun")
    case .planSourcesList: ("(the sources list)", "(la liste des sources)")
    case .planPacked: ("(packed)", "(regroupé)")
    case .planProbe: ("(probe)", "(sonde)")
    case .planAwaiting:
      (
        "packed once the sources list is known (a dry run does not fetch it)",
        "regroupé une fois la liste des sources connue (un essai à blanc ne la récupère pas)"
      )
    case .planSends: ("Sends {1}", "Envoie {1}")
    case .planRequests: ("{1} requests", "{1} requêtes")
    case .planOneRequest: ("1 request", "1 requête")
    case .planUpToMore:
      (
        "(up to {1} more if shared answers crowd countries out)",
        "(jusqu'à {1} de plus si des réponses partagées évincent des pays)"
      )
    case .planMoreOnly:
      (
        "(more only if a shared answer crowds a country out)",
        "(davantage seulement si une réponse partagée évince un pays)"
      )
    case .planBudget:
      (
        "; last 24 hours: {1} + {2} of {3}; last 12 hours: {4} + {5} of {6}",
        " ; dernières 24 heures : {1} + {2} sur {3} ; dernières 12 heures : {4} + {5} sur {6}"
      )
    case .planTakes: ("Takes about {1}", "Prend environ {1}")
    case .planAtMost: (", at most {1}", ", au plus {1}")
    case .planGDELTSpacing:
      (", GDELT being asked once every {1}.", ", GDELT étant interrogé une fois toutes les {1}.")

    // MARK: search
    case .searchAbstract:
      (
        "Search every article NewsAPI indexes (its everything endpoint).",
        "Chercher dans tous les articles que NewsAPI indexe (son point d'accès everything)."
      )
    case .searchQueryHelp:
      (
        "Words to look for; NewsAPI's syntax (\"exact phrase\", +must, -not, AND/OR/NOT) works.",
        "Mots à chercher ; la syntaxe de NewsAPI (\"phrase exacte\", +obligatoire, -exclu, AND/OR/NOT) marche."
      )
    case .searchLanguageHelp:
      (
        "One of NewsAPI's 14 languages, such as fr or french (default the language setting).",
        "Une des 14 langues de NewsAPI, comme fr ou french (par défaut le réglage language)."
      )
    case .searchSortByHelp:
      (
        "relevancy, popularity or publishedAt (default the sort-by setting, else publishedAt).",
        "relevancy, popularity ou publishedAt (par défaut le réglage sort-by, sinon publishedAt)."
      )
    case .searchFromHelp:
      (
        "Oldest date or time, ISO 8601 (2026-11-01 or 2026-11-01T10:00:00), UTC unless it has an offset.",
        "Date ou heure la plus ancienne, ISO 8601 (2026-11-01 ou 2026-11-01T10:00:00), UTC sauf décalage donné."
      )
    case .searchToHelp: ("Newest date or time, ISO 8601.", "Date ou heure la plus récente, ISO 8601.")
    case .searchSourcesHelp:
      (
        "Only these sources, comma-separated ids (up to 20; see sources).",
        "Seulement ces sources, identifiants séparés par des virgules (20 au plus ; voir sources)."
      )
    case .searchDomainsHelp:
      (
        "Only these domains, comma-separated (bbc.co.uk,lemonde.fr).",
        "Seulement ces domaines, séparés par des virgules (bbc.co.uk,lemonde.fr)."
      )
    case .searchExcludeDomainsHelp:
      ("Never these domains, comma-separated.", "Jamais ces domaines, séparés par des virgules.")
    case .searchSearchInHelp:
      (
        "Where the words must be: title, description, content, comma-separated.",
        "Où les mots doivent se trouver : title, description, content, séparés par des virgules."
      )
    case .searchPageSizeHelp: ("Articles, 1 to 100.", "Articles, 1 à 100.")
    // No noun to agree with a number: "1 articles sur 1" and "1 of 1 articles" were wrong.
    case .searchCount: ("Articles: {1} of {2}", "Articles : {1} sur {2}")

    // MARK: sources
    case .sourcesAbstract:
      (
        "List NewsAPI's top-headline sources (country codes normalised: zh→cn, is→il).",
        "Lister les sources de gros titres de NewsAPI (codes pays normalisés : zh→cn, is→il)."
      )
    case .sourcesNameHelp:
      (
        "Only sources whose id or name contains this text (any case).",
        "Seulement les sources dont l'identifiant ou le nom contient ce texte (casse indifférente)."
      )
    case .sourcesCountryHelp:
      (
        "A country: a two-letter code, or the name of one of the 54 in English or French.",
        "Un pays : un code de deux lettres, ou le nom d'un des 54 en anglais ou en français."
      )
    case .sourcesLanguageHelp:
      (
        "A language: one of NewsAPI's 14 codes (fr) or its name in English or French (french, français).",
        "Une langue : un des 14 codes de NewsAPI (fr) ou son nom en anglais ou en français (french, français)."
      )
    case .sourcesCategoryHelp:
      (
        "A category (business, entertainment, general, health, science, sports, technology).",
        "Une catégorie (business, entertainment, general, health, science, sports, technology)."
      )
    case .sourcesNoneListed: ("NewsAPI listed no sources.", "NewsAPI n'a listé aucune source.")
    case .sourcesNoMatch:
      (
        "No NewsAPI source matches {1}; 'newsatlas sources' lists them all.",
        "Aucune source NewsAPI ne correspond à {1} ; 'newsatlas sources' les liste toutes."
      )
    case .sourcesAnd: (" and ", " et ")

    // MARK: quota
    case .quotaAbstract:
      (
        "Show the requests sent in the last 24 and 12 hours, and when they free up.",
        "Montrer les requêtes envoyées ces dernières 24 et 12 heures, et quand elles se libèrent."
      )
    case .quotaNoCache:
      (
        "There is no cache at {1}, so no requests are counted.",
        "Il n'y a pas de cache à {1}, donc aucune requête n'est comptée."
      )
    case .quotaUsage:
      (
        "{1} of {2} requests in the last 24 hours, {3} of {4} in the last 12 hours.",
        "{1} requêtes sur {2} ces dernières 24 heures, {3} sur {4} ces dernières 12 heures."
      )
    case .quotaSpent:
      (
        "The budget is spent; the next request frees up in {1}.",
        "Le budget est épuisé ; la prochaine requête se libère dans {1}."
      )
    case .quotaOldest:
      (
        "The oldest of them leaves the 24-hour window in {1}.",
        "La plus ancienne sort de la fenêtre de 24 heures dans {1}."
      )
    case .durationSeconds: ("{1} seconds", "{1} secondes")
    case .durationSecond: ("1 second", "1 seconde")
    case .durationMinutes: ("{1} minutes", "{1} minutes")
    case .durationMinute: ("1 minute", "1 minute")
    case .durationHours: ("{1} hours", "{1} heures")
    case .durationHour: ("1 hour", "1 heure")
    case .durationDays: ("{1} days", "{1} jours")
    case .durationDay: ("1 day", "1 jour")
    // Article dates. `dateToday` and `dateOnDay` are layouts with named fields, which HumanDate (and the map
    // page's script) fill: {day} (4), {day2} (04), {month2} (11), {monthName} (the month's message), {year},
    // {hour} and {minute} (two digits), {ago} (dateJustNow, dateMinutesAgo or dateHoursAgo).
    case .dateJustNow: ("just now", "à l'instant")
    case .dateUnknown: ("date unknown", "date inconnue")
    case .dateMinutesAgo: ("{1} min ago", "il y a {1} min")
    case .dateHoursAgo: ("{1} h ago", "il y a {1} h")
    case .dateToday: ("{hour}:{minute} ({ago})", "{hour}:{minute} ({ago})")
    case .dateOnDay:
      ("{day} {monthName} {year}, {hour}:{minute}", "Le {day2}/{month2}/{year} à {hour}:{minute}")
    case .monthJanuary: ("Jan", "janv.")
    case .monthFebruary: ("Feb", "févr.")
    case .monthMarch: ("Mar", "mars")
    case .monthApril: ("Apr", "avr.")
    case .monthMay: ("May", "mai")
    case .monthJune: ("Jun", "juin")
    case .monthJuly: ("Jul", "juil.")
    case .monthAugust: ("Aug", "août")
    case .monthSeptember: ("Sep", "sept.")
    case .monthOctober: ("Oct", "oct.")
    case .monthNovember: ("Nov", "nov.")
    case .monthDecember: ("Dec", "déc.")
    // The map page: its controls, its script's sentences, the categories' names.
    case .mapDataset: ("Dataset", "Jeu de données")
    case .mapLatitude: ("Latitude", "Latitude")
    case .mapLongitude: ("Longitude", "Longitude")
    case .mapNearMe: ("Near me", "Près de moi")
    case .mapUseMyLocation: ("Use my location", "Ma position")
    case .mapCountry: ("Country", "Pays")
    case .mapGo: ("Go", "Aller")
    case .mapWholeWorld: ("Whole world", "Monde entier")
    case .mapProperty: ("Property", "Propriété")
    case .mapValue: ("Value", "Valeur")
    case .mapFilter: ("Filter", "Filtrer")
    case .mapOtherLanguage: ("Français", "English")
    case .mapMap: ("News map", "Carte des actualités")
    case .mapClose: ("Close", "Fermer")
    case .mapCategory: ("Category", "Catégorie")
    case .mapFavouriteSource: ("Favourite source", "Source favorite")
    case .mapLoading: ("Loading…", "Chargement…")
    case .mapNoNews: ("No headlines for this country.", "Aucun titre pour ce pays.")
    case .mapCluster: ("{1} countries or points: zoom in", "{1} pays ou points : zoomer")
    case .mapPoint: ("Point", "Point")
    case .mapNearest: ("Nearest news country, {1} km away", "Pays d’actualités le plus proche, à {1} km")
    case .mapBadPlace:
      ("Type a latitude and a longitude in degrees.", "Saisissez une latitude et une longitude en degrés.")
    case .mapNoLocation: ("Your browser gave no location.", "Le navigateur n’a donné aucune position.")
    case .mapFailed: ("The service did not answer: {1}", "Le service n’a pas répondu : {1}")
    case .mapTopHeadlines: ("Top headlines", "À la une")
    case .mapNoFavouriteSource: ("No favourite source", "Aucune source favorite")
    case .mapOffer:
      (
        "Centre on {1}, the news country nearest to you?",
        "Centrer sur {1}, le pays d’actualités le plus proche ?"
      )
    case .mapYes: ("Yes", "Oui")
    case .mapFiltered: ("Filter: {1} = {2}", "Filtre : {1} = {2}")
    case .mapBorders: ("Borders: Natural Earth", "Frontières : Natural Earth")
    case .mapProviderFeeds: ("Feeds", "Flux")
    case .mapViaSourceCountry: ("by source country", "par pays de la source")
    case .mapCategoryBusiness: ("Business", "Économie")
    case .mapCategoryEntertainment: ("Entertainment", "Divertissement")
    case .mapCategoryGeneral: ("General", "Général")
    case .mapCategoryHealth: ("Health", "Santé")
    case .mapCategoryScience: ("Science", "Sciences")
    case .mapCategorySports: ("Sports", "Sports")
    case .mapCategoryTechnology: ("Technology", "Technologie")
    case .mapNearestOffer:
      ("Nearest news country: {1}, {2} km", "Pays d’actualités le plus proche : {1}, à {2} km")
    case .mapShowNews: ("Show its news", "Voir ses actualités")
    case .mapNoProperties: ("This point has no properties.", "Ce point n’a aucune propriété.")
    case .mapNewsHere: ("Headlines for this place", "Les titres de ce lieu")
    case .mapUnreachable: ("Could not reach the server.", "Impossible de joindre le serveur.")
    case .mapRetry: ("Retry", "Réessayer")
    case .mapFilterCount: ("{1} of {2} features match", "{1} sur {2} entités correspondent")
    case .mapUnknownProperty:
      (
        "'{1}' is not a property of {2}; its properties: {3}.",
        "'{1}' n’est pas une propriété de {2} ; ses propriétés : {3}."
      )
    case .mapNoCountry: ("No news country is called '{1}'.", "Aucun pays d’actualités ne s’appelle '{1}'.")
    case .mapWhichCountry: ("'{1}' could be:", "'{1}' peut être :")
    case .mapTools: ("Tools", "Outils")
    case .mapSearch: ("Search a country", "Chercher un pays")
    case .mapHint:
      (
        "Click a country or a marker for its headlines.",
        "Cliquez sur un pays ou un marqueur pour ses titres."
      )
    case .mapHideHint: ("Hide this hint", "Masquer cette aide")
    case .mapLegend: ("Legend", "Légende")
    case .mapLegendCluster:
      ("Several countries or points: click to zoom in", "Plusieurs pays ou points : zoomer")
    case .mapLegendPoint:
      ("A news country or a point: its headlines", "Un pays d’actualités ou un point : ses titres")
    case .mapLegendNewsCountry: ("A news country", "Un pays d’actualités")
    case .mapLegendOtherCountry:
      (
        "Another country: a click shows the nearest news country's headlines",
        "Autre pays : un clic montre les titres du pays d’actualités le plus proche"
      )
    case .mapLegendPin:
      ("Where you clicked; the country shown, outlined", "Votre clic ; le pays montré, entouré")
    case .labelled: ("{1}: {2}", "{1} : {2}")

    // MARK: config
    case .configAbstract:
      (
        "Show or change the settings file ($XDG_CONFIG_HOME/newsatlas/config.toml).",
        "Montrer ou changer le fichier de réglages ($XDG_CONFIG_HOME/newsatlas/config.toml)."
      )
    case .configDiscussion:
      (
        "config show | config get KEY | config set KEY VALUE | config unset KEY | config reset | config path. "
          + "show lists every setting, its value in use and where it comes from (flag, environment, file and "
          + "line, default); the API key is shown as set, never its value. Keys: {1}. Flags and the environment "
          + "(NEWSAPI_KEY, NEWSATLAS_API_BASE) override the file.",
        "config show | config get CLÉ | config set CLÉ VALEUR | config unset CLÉ | config reset | config path. "
          + "show liste chaque réglage, sa valeur en usage et d'où elle vient (option, environnement, fichier et "
          + "ligne, défaut) ; la clé d'API est montrée comme réglée, jamais sa valeur. Clés : {1}. Les options et "
          + "l'environnement (NEWSAPI_KEY, NEWSATLAS_API_BASE) l'emportent sur le fichier."
      )
    case .configActionHelp: ("show, get, set, unset, reset or path.", "show, get, set, unset, reset ou path.")
    case .configKeyHelp: ("The setting's name.", "Le nom du réglage.")
    case .configValueHelp:
      (
        "The value, for set; - reads it from standard input (keeps a key out of ps and shell history).",
        "La valeur, pour set ; - la lit sur l'entrée standard (garde une clé hors de ps et de l'historique)."
      )
    case .configFormatHelp:
      ("Output format of show: text or json.", "Format de sortie de show : text ou json.")
    case .configCannotRead:
      ("Cannot read the value from standard input.", "Impossible de lire la valeur sur l'entrée standard.")
    case .configOneLine:
      (
        "'config set KEY -' takes one line of at most 4 KiB on standard input.",
        "'config set CLÉ -' prend une ligne d'au plus 4 Kio sur l'entrée standard."
      )
    case .configShowTakesNothing:
      (
        "'config show' takes no setting; it shows them all.",
        "'config show' ne prend aucun réglage ; il les montre tous."
      )
    case .configUnknownAction:
      (
        "'{1}' is not a config action; use show, get, set, unset, reset or path.",
        "'{1}' n'est pas une action de config ; utilisez show, get, set, unset, reset ou path."
      )
    case .configNameASetting: ("Name a setting: {1}.", "Nommez un réglage : {1}.")
    case .configNotASettingDidYouMean:
      ("'{1}' is not a setting; did you mean '{2}'?", "'{1}' n'est pas un réglage ; vouliez-vous dire '{2}' ?")
    case .notACommand:
      ("'{1}' is not a command; the commands are {2}.", "'{1}' n'est pas une commande ; les commandes sont {2}.")
    case .notACommandDidYouMean:
      ("'{1}' is not a command; did you mean '{2}'?", "'{1}' n'est pas une commande ; vouliez-vous dire '{2}' ?")
    case .unknownOptionDidYouMean:
      ("Unknown option '{1}'; did you mean '{2}'?", "Option inconnue '{1}' ; vouliez-vous dire '{2}' ?")
    case .configNotSet: ("{1} is not set.", "{1} n'est pas réglé.")
    case .configGiveValue:
      ("Give the value after 'config set {1}'.", "Donnez la valeur après 'config set {1}'.")
    case .originFlag: ("flag ({1})", "option ({1})")
    case .originEnvironment: ("environment (${1})", "environnement (${1})")
    case .originFile: ("file ({1}, line {2})", "fichier ({1}, ligne {2})")
    case .originDefault: ("default", "défaut")
    case .originUnset: ("not set", "non réglé")
    case .originSet: ("set", "réglée")

    // MARK: feeds
    case .feedsAbstract:
      (
        "List, add or remove a country's RSS and Atom feeds ($XDG_CONFIG_HOME/newsatlas/feeds.txt).",
        "Lister, ajouter ou retirer les flux RSS et Atom d'un pays ($XDG_CONFIG_HOME/newsatlas/feeds.txt)."
      )
    case .feedsDiscussion:
      (
        "feeds add COUNTRY URL | feeds remove COUNTRY URL | feeds list [COUNTRY] | feeds check [COUNTRY] | feeds "
          + "path. COUNTRY is a code or a name (fr, France). add reads the URL first: a feed is added, a web page "
          + "adds the feed its <link rel=\"alternate\"> names (--no-check adds the URL unread). check reads every "
          + "feed once and says how each answered. A country's feeds answer its headlines with --provider feeds, "
          + "and with auto before NewsAPI and GDELT. NewsAtlas ships no feeds of its own.",
        "feeds add PAYS URL | feeds remove PAYS URL | feeds list [PAYS] | feeds check [PAYS] | feeds path. add lit "
          + "d'abord l'URL : un flux est ajouté, une page web ajoute le flux que nomme son <link rel=\"alternate\"> "
          + "(--no-check ajoute l'URL sans la lire). check lit chaque flux une fois et dit comment il a répondu. "
          + "PAYS est un code ou un nom "
          + "(fr, France). Les flux d'un pays donnent ses titres avec --provider feeds, et avec auto avant NewsAPI "
          + "et GDELT. NewsAtlas ne fournit aucun flux."
      )
    case .feedsActionHelp: ("add, remove, list, check or path.", "add, remove, list, check ou path.")
    case .feedsCountryHelp: ("The country: its code or its name.", "Le pays : son code ou son nom.")
    case .feedsURLHelp:
      (
        "The feed's URL (http or https), for add and remove.",
        "L'URL du flux (http ou https), pour add et remove."
      )
    case .feedsFormatHelp:
      ("Output format of list: text or json.", "Format de sortie de list : text ou json.")
    case .feedsUnknownAction:
      (
        "'{1}' is not a feeds action; use add, remove, list, check or path.",
        "'{1}' n'est pas une action de feeds ; utilisez add, remove, list, check ou path."
      )
    case .feedsTakesCountryAndURL:
      (
        "'feeds {1}' takes a country and a URL: newsatlas feeds {1} fr https://….",
        "'feeds {1}' prend un pays et une URL : newsatlas feeds {1} fr https://…."
      )
    case .feedsTakesNothingMore: ("'feeds {1}' takes nothing more.", "'feeds {1}' ne prend rien de plus.")
    case .feedsTakesACountryMore:
      ("'feeds {1}' takes at most a country more.", "'feeds {1}' prend au plus un pays de plus.")
    case .feedsAdded: ("{1}: added {2}", "{1} : ajouté {2}")
    case .feedsAddedFromPage:
      (
        "{1}: added {2}, the feed the page {3} names ({4})",
        "{1} : ajouté {2}, le flux que nomme la page {3} ({4})"
      )
    case .feedsPageNamesNoFeed:
      (
        "{1} is a web page that names no RSS or Atom feed that reads (a <link rel=\"alternate\" "
          + "type=\"application/rss+xml\"> in its head); give the feed's own URL.",
        "{1} est une page web qui ne nomme aucun flux RSS ou Atom lisible (un <link rel=\"alternate\" "
          + "type=\"application/rss+xml\"> dans son en-tête) ; donnez l'URL du flux lui-même."
      )
    case .feedsAddedUnread:
      (
        "{1} could not be read now ({2}); it is added as given, and 'newsatlas feeds check' says when it answers.",
        "{1} n'a pas pu être lu maintenant ({2}) ; il est ajouté tel quel, et 'newsatlas feeds check' dira quand "
          + "il répond."
      )
    case .feedsNoCheckHelp:
      (
        "add: keep the URL as given, without reading it first.",
        "add : garder l'URL telle quelle, sans la lire d'abord."
      )
    case .feedsTimeoutHelp:
      (
        "add and check: seconds each request may take, its connection included.",
        "add et check : secondes que peut prendre chaque requête, sa connexion comprise."
      )
    case .feedsCheckColumns: ("COUNTRY STATUS ITEMS NEWEST URL", "PAYS ÉTAT ARTICLES DERNIER URL")
    case .feedsCheckFailed:
      (
        "{1} of {2} feeds did not answer with a feed; the lines above say why.",
        "{1} flux sur {2} n'ont pas répondu par un flux ; les lignes ci-dessus disent pourquoi."
      )
    case .feedsAlreadyHas: ("{1}: already has {2}", "{1} : a déjà {2}")
    case .feedsRemoved: ("{1}: removed {2}", "{1} : retiré {2}")
    case .feedsNoSuchFeed:
      (
        "{1} has no feed {2}; 'newsatlas feeds list {1}' lists its feeds.",
        "{1} n'a pas de flux {2} ; 'newsatlas feeds list {1}' liste ses flux."
      )
    case .feedsNone:
      (
        "No feeds are kept; add one with 'newsatlas feeds add COUNTRY URL'.",
        "Aucun flux n'est enregistré ; ajoutez-en un avec 'newsatlas feeds add PAYS URL'."
      )
    case .feedsNoneForCountry:
      (
        "{1} has no feeds; add one with 'newsatlas feeds add {1} URL'.",
        "{1} n'a aucun flux ; ajoutez-en un avec 'newsatlas feeds add {1} URL'."
      )

    // MARK: Settings (the keys' help and their refusals)
    case .settingCountryHelp:
      (
        "the favourite country, used by headlines when no country is named (any country GDELT covers; one of "
          + "NewsAPI's 54 for the newsapi provider)",
        "le pays favori, utilisé par headlines quand aucun pays n'est nommé (tout pays que couvre GDELT ; un des "
          + "54 de NewsAPI pour le fournisseur newsapi)"
      )
    case .settingLanguageHelp:
      ("the search language (one of NewsAPI's 14)", "la langue des recherches (une des 14 de NewsAPI)")
    case .settingCategoryHelp: ("the default headlines category", "la catégorie de titres par défaut")
    case .settingSortByHelp:
      (
        "the order of search results: relevancy, popularity or publishedAt",
        "l'ordre des résultats de recherche : relevancy, popularity ou publishedAt"
      )
    case .settingInterfaceLanguageHelp:
      (
        "the language of messages and help: en or fr (default: the locale)",
        "la langue des messages et de l'aide : en ou fr (par défaut : la locale)"
      )
    case .settingSourcesHelp:
      (
        "favourite NewsAPI sources, comma-separated ids (bbc-news,le-monde): headlines asks them when no "
          + "country is named, packed with the rest",
        "sources NewsAPI favorites, identifiants séparés par des virgules (bbc-news,le-monde) : headlines les "
          + "demande quand aucun pays n'est nommé, regroupées avec le reste"
      )
    case .settingAPIBaseHelp:
      ("the service's base URL (default {1})", "l'URL de base du service (par défaut {1})")
    case .settingAPIKeyHelp:
      (
        "the NewsAPI key (the file must then be readable by you alone)",
        "la clé NewsAPI (le fichier ne doit alors être lisible que par vous)"
      )
    case .settingTTLHeadlinesHelp:
      (
        "seconds cached headlines stay fresh ({1})",
        "secondes pendant lesquelles les titres en cache restent frais ({1})"
      )
    case .settingTTLSearchHelp:
      (
        "seconds cached searches stay fresh ({1})",
        "secondes pendant lesquelles les recherches en cache restent fraîches ({1})"
      )
    case .settingTTLSourcesHelp:
      (
        "seconds the cached sources list stays fresh ({1})",
        "secondes pendant lesquelles la liste des sources en cache reste fraîche ({1})"
      )
    case .settingQuotaDayHelp:
      (
        "the plan's requests per 24 hours (default {1}, the free plan)",
        "les requêtes de l'abonnement par 24 heures (par défaut {1}, l'offre gratuite)"
      )
    case .settingQuotaHalfDayHelp:
      (
        "the plan's requests per 12 hours (default {1})",
        "les requêtes de l'abonnement par 12 heures (par défaut {1})"
      )
    case .settingProviderHelp:
      ("where headlines come from: {1} (default {2})", "d'où viennent les titres : {1} (par défaut {2})")
    case .settingGDELTBaseHelp:
      (
        "GDELT's base URL (default {1}); it never gets the NewsAPI key",
        "l'URL de base de GDELT (par défaut {1}) ; elle ne reçoit jamais la clé NewsAPI"
      )
    case .settingGDELTSpacingHelp:
      (
        "seconds between two GDELT requests, across processes (default {1})",
        "secondes entre deux requêtes GDELT, entre processus (par défaut {1})"
      )
    case .settingDefaultSeconds: ("default {1}", "par défaut {1}")
    case .notALanguage:
      (
        "'{1}' is not a NewsAPI language; use one of {2} (or its name, such as french).",
        "'{1}' n'est pas une langue de NewsAPI ; utilisez {2} (ou son nom, comme français)."
      )
    case .notACategory:
      (
        "'{1}' is not a NewsAPI category; use one of {2}.",
        "'{1}' n'est pas une catégorie de NewsAPI ; utilisez {2}."
      )
    case .notASortOrder:
      (
        "Sort by relevancy, popularity or publishedAt, not '{1}'.",
        "Triez par relevancy, popularity ou publishedAt, pas '{1}'."
      )
    case .notAnInterfaceLanguage:
      (
        "'{1}' is not an interface language; use en or fr.",
        "'{1}' n'est pas une langue d'interface ; utilisez en ou fr."
      )
    case .notABase:
      (
        "The {1} '{2}' is not an http or https URL with a host (and no query or fragment), such as {3}.",
        "La {1} '{2}' n'est pas une URL http ou https avec un hôte (et sans requête ni fragment), comme {3}."
      )
    case .apiBaseName: ("API base", "base de l'API")
    case .gdeltBaseName: ("GDELT base", "base de GDELT")
    case .notAProvider:
      ("'{1}' is not a provider; use one of {2}.", "'{1}' n'est pas un fournisseur ; utilisez {2}.")
    case .settingTooLarge:
      (
        "{1} takes at most {2} ({3}), not '{4}'.",
        "{1} prend au plus {2} ({3}), pas '{4}'."
      )
    case .settingMaximumRequests: ("a million requests", "un million de requêtes")
    case .settingMaximumHour: ("an hour, in seconds", "une heure, en secondes")
    case .settingMaximumYear: ("a year, in seconds", "un an, en secondes")
    case .notAWholeNumber:
      (
        "{1} takes a whole number, {2} or more, not '{3}'.",
        "{1} prend un nombre entier, {2} ou plus, pas '{3}'."
      )
    case .apiKeyProblem:
      (
        "The API key {1}; a key is ASCII letters, digits, - and _ (NewsAPI's are 32 hexadecimal digits).",
        "La clé d'API {1} ; une clé est faite de lettres ASCII, de chiffres, de - et de _ (celles de NewsAPI "
          + "sont 32 chiffres hexadécimaux)."
      )
    case .apiKeyEmpty: ("is empty", "est vide")
    case .apiKeyControl:
      (
        "holds a control character (a line break, a tab, an escape)",
        "contient un caractère de contrôle (un saut de ligne, une tabulation, un échappement)"
      )
    case .apiKeyLong: ("is longer than 256 characters", "dépasse 256 caractères")
    case .apiKeyCharacters:
      (
        "holds a character other than a letter, a digit, - or _",
        "contient un caractère autre qu'une lettre, un chiffre, - ou _"
      )
    case .keyFileReadable:
      (
        "'{1}' holds an API key but other users can read it, so it is not used; run: chmod 600 '{1}'.",
        "'{1}' contient une clé d'API mais d'autres utilisateurs peuvent le lire, donc elle n'est pas "
          + "utilisée ; lancez : chmod 600 '{1}'."
      )
    case .notASetting:
      (
        "Line {1} of '{2}' sets '{3}', which is not a setting{4}; 'newsatlas config --help' lists them.",
        "La ligne {1} de '{2}' règle '{3}', qui n'est pas un réglage{4} ; 'newsatlas config --help' les liste."
      )
    case .didYouMean: (" (did you mean {1}?)", " (vouliez-vous dire {1} ?)")
    case .settingMustBeString:
      (
        "Line {1} of '{2}': the value of {3} must be a quoted string.",
        "Ligne {1} de '{2}' : la valeur de {3} doit être une chaîne entre guillemets."
      )
    case .settingMustBeStringOrNumber:
      (
        "Line {1} of '{2}': the value of {3} must be a quoted string or a whole number.",
        "Ligne {1} de '{2}' : la valeur de {3} doit être une chaîne entre guillemets ou un nombre entier."
      )
    case .lineOfFile: ("line {1} of '{2}'", "ligne {1} de '{2}'")

    // MARK: Sources (NewsAPI's)
    case .unknownSource:
      (
        "'{1}' is not a NewsAPI source id; the nearest are {2} ('newsatlas sources NAME' finds one by name).",
        "'{1}' n'est pas un identifiant de source NewsAPI ; les plus proches sont {2} ('newsatlas sources NOM' "
          + "en trouve une par son nom)."
      )
    case .unknownSourceNoneNear:
      (
        "'{1}' is not a NewsAPI source id; 'newsatlas sources NAME' finds one by name.",
        "'{1}' n'est pas un identifiant de source NewsAPI ; 'newsatlas sources NOM' en trouve une par son nom."
      )
    case .serviceUnknownSource:
      (
        "'{1}' is not a NewsAPI source id; the nearest are {2} (/v1/sources lists the sources this server "
          + "offers).",
        "'{1}' n'est pas un identifiant de source NewsAPI ; les plus proches sont {2} (/v1/sources liste les "
          + "sources que ce serveur propose)."
      )
    case .serviceUnknownSourceNoneNear:
      (
        "'{1}' is not a NewsAPI source id; /v1/sources lists the sources this server offers.",
        "'{1}' n'est pas un identifiant de source NewsAPI ; /v1/sources liste les sources que ce serveur "
          + "propose."
      )
    case .sourceIdShape:
      (
        "'{1}' is not a source id: an id is letters, digits, '-', '_' and '.' (as bbc-news).",
        "'{1}' n'est pas un identifiant de source : un identifiant est fait de lettres, de chiffres, de '-', "
          + "de '_' et de '.' (comme bbc-news)."
      )
    case .sourcesListNotCached:
      (
        "The sources list is not cached, so a dry run cannot check a source id; 'newsatlas sources' fetches it "
          + "(one request).",
        "La liste des sources n'est pas en cache, un essai à blanc ne peut donc pas vérifier un identifiant de "
          + "source ; 'newsatlas sources' la récupère (une requête)."
      )
    case .sourceOutsideCountries:
      (
        "'{1}' is a source of {2}, which is not one of the 54 countries headlines are asked for.",
        "'{1}' est une source de {2}, qui n'est pas un des 54 pays dont on demande les titres."
      )
    case .tooManySources:
      ("NewsAPI takes at most 20 sources a request.", "NewsAPI prend au plus 20 sources par requête.")
    case .twoLetterCountry:
      (
        "'{1}' is not a two-letter country code, such as fr.",
        "'{1}' n'est pas un code pays de deux lettres, comme fr."
      )

    // MARK: NewsAPI's requests and answers
    case .serviceMethodNotAllowed:
      ("{1} answers {2}, not {3}.", "{1} répond à {2}, pas à {3}.")
    // MARK: swift-argument-parser's own words (ArgumentParserWords matches the English, as it writes them)
    case .parserUnknownOptionSuggested:
      (
        "Unknown option '{1}'. Did you mean '{2}'?",
        "Option inconnue '{1}'. Vouliez-vous dire '{2}' ?"
      )
    case .parserUnknownOption: ("Unknown option '{1}'", "Option inconnue '{1}'")
    case .parserMissingArgument: ("Missing expected argument '{1}'", "Il manque l'argument attendu '{1}'")
    case .parserMissingOneOf: ("Missing one of: '{1}'", "Il manque l'un de : '{1}'")
    case .parserMissingValue: ("Missing value for '{1}'", "Il manque une valeur pour '{1}'")
    case .parserTakesNoValue:
      (
        "The option '{1}' does not take any value, but '{2}' was specified.",
        "L'option '{1}' ne prend pas de valeur, mais '{2}' a été donné."
      )
    case .parserUnexpectedArgument: ("Unexpected argument '{1}'", "Argument inattendu '{1}'")
    case .parserUnexpectedArguments: ("{1} unexpected arguments: '{2}'", "{1} arguments inattendus : '{2}'")
    case .parserSetTwice:
      (
        "Value to be set with {1} had already been set with {2}",
        "La valeur donnée par {1} l'était déjà par {2}"
      )
    case .parserFlag: ("flag {1}", "l'option {1}")
    case .parserInvalidValueFor:
      (
        "The value '{1}' is invalid for '{2}'{3}",
        "La valeur '{1}' n'est pas valide pour '{2}'{3}"
      )
    case .parserInvalidValue: ("The value '{1}' is invalid.{2}", "La valeur '{1}' n'est pas valide.{2}")
    case .parserProvideOneOfList:
      (". Please provide one of the following:", ". Donnez l'une des valeurs suivantes :")
    case .parserProvideOneOf: (". Please provide one of {1}.", ". Donnez l'une des valeurs {1}.")
    case .parserMissingSubcommand: ("Missing required subcommand.", "Il manque une sous-commande.")
    case .helpOverviewHeading: ("OVERVIEW:", "APERÇU :")
    case .helpUsageHeading: ("USAGE:", "UTILISATION :")
    case .helpArgumentsHeading: ("ARGUMENTS:", "ARGUMENTS :")
    case .helpOptionsHeading: ("OPTIONS:", "OPTIONS :")
    case .helpSubcommandsHeading: ("SUBCOMMANDS:", "SOUS-COMMANDES :")
    case .helpDefault: ("(default:", "(par défaut :")
    case .helpDefaultAfterValues: ("; default:", " ; par défaut :")
    case .listSemicolon: ("; ", " ; ")
    case .helpValues: ("(values:", "(valeurs :")
    case .helpShowHelpLine: ("Show help information.", "Afficher l'aide.")
    case .helpShowVersion: ("Show the version.", "Afficher la version.")
    case .helpSubcommandHelpLine:
      ("Show subcommand help information.", "Afficher l'aide d'une sous-commande.")
    case .helpSeeSubcommand:
      (
        "See 'newsatlas help <subcommand>' for detailed help.",
        "Voir 'newsatlas help <sous-commande>' pour l'aide détaillée."
      )
    case .serviceBatchFormat: ("format is csv or jsonl, not '{1}'.", "format vaut csv ou jsonl, pas '{1}'.")
    case .serviceBatchCountNeedsJSONL:
      (
        "count above 1 needs format=jsonl; csv has one row per input line.",
        "count au-dessus de 1 demande format=jsonl ; csv a une ligne par ligne d'entrée."
      )
    case .serviceBatchNotJSON:
      (
        "This endpoint reads latitude,longitude lines (text/csv or text/plain, a header optional), not "
          + "{1}; send one latitude,longitude pair a line.",
        "Ce point d'accès lit des lignes latitude,longitude (text/csv ou text/plain, un en-tête "
          + "facultatif), pas {1} ; envoyez une paire latitude,longitude par ligne."
      )
    case .serviceBodyTooLarge:
      (
        "The body is {1} bytes; this service takes at most {2} in one request.",
        "Le corps fait {1} octets ; ce service en prend au plus {2} par requête."
      )
    case .serviceBodyOverLimit:
      (
        "The body is over {1} bytes, the most this service takes in one request.",
        "Le corps dépasse {1} octets, le plus que ce service prend par requête."
      )
    case .serviceTooManyLeaves:
      (
        "These leaves are more than {1}, this server's limit of features in one answer (serve "
          + "--max-features); page through them with limit and offset.",
        "Ces feuilles sont plus de {1}, la limite d'objets par réponse de ce serveur (serve "
          + "--max-features) ; parcourez-les avec limit et offset."
      )
    case .serviceTooManyChildren:
      (
        "The answer for these children would hold {1} features, over this server's limit of {2} (serve "
          + "--max-features); page through its leaves with limit and offset.",
        "La réponse pour ces enfants contiendrait {1} objets, au-delà de la limite de {2} de ce serveur "
          + "(serve --max-features) ; parcourez ses feuilles avec limit et offset."
      )
    case .serviceTooManyInArea:
      (
        "The answer for this area at zoom {1} would hold {2} features, over this server's limit of {3} "
          + "(serve --max-features); ask for less with bbox=west,south,east,north.",
        "La réponse pour cette zone au zoom {1} contiendrait {2} objets, au-delà de la limite de {3} de "
          + "ce serveur (serve --max-features) ; demandez moins avec bbox=ouest,sud,est,nord."
      )
    case .serviceGiveMapZoom:
      (
        "Give zoom, the map's zoom level (for example zoom=3).",
        "Donnez zoom, le niveau de zoom de la carte (par exemple zoom=3)."
      )
    case .serviceNoLeafletFile: ("Leaflet ships no file '{1}' here.", "Leaflet n'a pas de fichier '{1}' ici.")
    case .serviceCountAtMost: ("count is at most 10000, not {1}.", "count vaut au plus 10000, pas {1}.")
    case .serviceMaxKmNegative:
      (
        "maxKm must be a distance of 0 kilometres or more, not {1}.",
        "maxKm doit être une distance de 0 kilomètre ou plus, pas {1}."
      )
    case .serviceTileFile:
      (
        "A tile is {z}/{x}/{y}.mvt or {z}/{x}/{y}.geojson, not '{1}'.",
        "Une tuile est {z}/{x}/{y}.mvt ou {z}/{x}/{y}.geojson, pas '{1}'."
      )
    case .serviceNoTileJSON:
      (
        "No dataset answers '/tiles/{1}'; /v1/datasets lists them.",
        "Aucun jeu de données ne répond à '/tiles/{1}' ; /v1/datasets les liste."
      )
    case .serviceFeatureIdShape:
      (
        "A feature id is 1 to 1024 bytes of percent-encoded UTF-8.",
        "Un identifiant d'objet fait de 1 à 1024 octets d'UTF-8 encodé en pourcentage."
      )
    case .serviceMarkersBuiltIn:
      (
        "The markers dataset is built in and cannot be written; write another name.",
        "Le jeu de données markers est intégré et ne peut pas être écrit ; écrivez un autre nom."
      )
    case .serviceCannotKeepBody: ("Cannot keep the body: {1}.", "Impossible de garder le corps : {1}.")
    case .serviceClusterIdShape:
      (
        "A cluster id is a whole number, not '{1}'; clusters carry theirs in cluster_id.",
        "Un identifiant de groupe est un nombre entier, pas '{1}' ; les groupes portent le leur dans "
          + "cluster_id."
      )
    case .serviceNeedsWriteToken:
      (
        "This write needs the server's write token, sent as Authorization: Bearer TOKEN.",
        "Cette écriture demande le jeton d'écriture du serveur, envoyé comme Authorization: Bearer "
          + "JETON."
      )
    case .serviceWrongWriteToken:
      (
        "The write token sent is not this server's; send the one serve was started with.",
        "Le jeton d'écriture envoyé n'est pas celui de ce serveur ; envoyez celui avec lequel serve a "
          + "démarré."
      )
    case .serviceNoDatasetToWrite:
      (
        "No dataset is named '{1}'; PUT /v1/datasets/{1} creates it.",
        "Aucun jeu de données ne s'appelle '{1}' ; PUT /v1/datasets/{1} le crée."
      )
    case .serviceWritesOff:
      (
        "Writes are off on this server; start serve with --write-token-file FILE (a file only you can read) or "
          + "NEWSATLAS_WRITE_TOKEN set to a token, and send it as Authorization: Bearer TOKEN.",
        "Les écritures sont coupées sur ce serveur ; lancez serve avec --write-token-file FICHIER (un fichier que "
          + "vous seul pouvez lire) ou NEWSATLAS_WRITE_TOKEN réglé sur un jeton, et envoyez-le comme "
          + "Authorization: Bearer JETON."
      )
    case .serviceWritesOffNoFolder:
      (
        "Writes are off: this server keeps no datasets directory to write them to.",
        "Les écritures sont coupées : ce serveur n'a pas de dossier de jeux de données où les écrire."
      )
    case .serviceBodyNotKept:
      (
        "The body could not be kept on the server's disk; the server's log says why.",
        "Le corps n'a pas pu être gardé sur le disque du serveur ; le journal du serveur dit pourquoi."
      )
    case .serviceBodyNotFeatureCollection:
      (
        "The body is not a GeoJSON FeatureCollection: a FeatureCollection is a JSON object, starting with '{'.",
        "Le corps n'est pas une FeatureCollection GeoJSON : une FeatureCollection est un objet JSON, qui commence "
          + "par '{'."
      )
    case .serviceDatasetNotKept:
      (
        "The dataset '{1}' could not be kept on the server's disk, so the change is not served; the server's log "
          + "says why.",
        "Le jeu de données '{1}' n'a pas pu être gardé sur le disque du serveur, la modification n'est donc pas "
          + "servie ; le journal du serveur dit pourquoi."
      )
    case .serviceChangeUnsynced:
      (
        "The change to the dataset '{1}' is served, but the server could not make sure that it is on its disk "
          + "(a crash may undo it); the server's log says why.",
        "La modification du jeu de données '{1}' est servie, mais le serveur n'a pas pu s'assurer qu'elle est sur "
          + "son disque (un plantage peut la défaire) ; le journal du serveur dit pourquoi."
      )
    case .serviceNoFeatureWithId:
      (
        "No feature of '{1}' has the id '{2}'; a feature's id is its GeoJSON id member.",
        "Aucun objet de '{1}' n'a l'identifiant '{2}' ; l'identifiant d'un objet est son membre id GeoJSON."
      )
    case .serviceKeptNotServed:
      (
        "The dataset '{1}' kept on the server's disk could not be served at start (the server's log says why), "
          + "and a change to the one given at start would write over it; PUT the dataset to replace it, or mend "
          + "the kept files and start again.",
        "Le jeu de données '{1}' gardé sur le disque du serveur n'a pas pu être servi au démarrage (le journal du "
          + "serveur dit pourquoi), et une modification de celui donné au démarrage l'écraserait ; envoyez le jeu "
          + "de données par PUT pour le remplacer, ou réparez les fichiers gardés et redémarrez."
      )
    case .serviceFilterTooCostly:
      (
        "This filter takes more than {1} steps over the {3} features of '{2}': search shorter literals, or test \"==\" where \"in\" searches a long string.",
        "Ce filtre demande plus de {1} étapes sur les {3} objets de '{2}' : cherchez des littéraux plus courts, ou testez \"==\" là où \"in\" fouille une longue chaîne."
      )
    case .serviceFilterQueueFull:
      (
        "The server is building {1} other filtered indexes; ask again in {2} s.",
        "Le serveur construit déjà {1} autres index filtrés ; redemandez dans {2} s."
      )
    case .serviceFilterTooLong:
      (
        "A filter is at most {1} bytes; this one is {2}.",
        "Un filtre fait au plus {1} octets ; celui-ci en fait {2}."
      )
    case .serviceHostTwice:
      (
        "A request names one Host; this one has {1} Host header fields.",
        "Une requête nomme un seul Host ; celle-ci a {1} champs d'en-tête Host."
      )
    case .serviceHostMissing:
      (
        "An HTTP/1.1 request names its Host (RFC 9112, section 3.2); this one has none.",
        "Une requête HTTP/1.1 nomme son Host (RFC 9112, section 3.2) ; celle-ci n'en a pas."
      )
    case .serviceNoLeaflet:
      (
        "Leaflet is not installed at {1}: apt-get install libjs-leaflet, or give --leaflet DIR.",
        "Leaflet n'est pas installé dans {1} : apt-get install libjs-leaflet, ou donnez --leaflet DOSSIER."
      )
    case .theUploadOf: ("the upload of '{1}'", "l'envoi de '{1}'")
    case .theDatasetNamed: ("the dataset '{1}'", "le jeu de données '{1}'")
    case .datasetNotKept:
      ("Cannot keep the dataset '{1}': {2}", "Impossible de garder le jeu de données '{1}' : {2}")
    case .datasetStepNotKept:
      (
        "Cannot keep the dataset '{1}': {2} failed ({3}).",
        "Impossible de garder le jeu de données '{1}' : {2} a échoué ({3})."
      )
    case .datasetUnsynced:
      (
        "The dataset '{1}' is changed on disk but may not stay so after a crash: {2}",
        "Le jeu de données '{1}' est modifié sur le disque mais peut ne pas le rester après un plantage : {2}"
      )
    case .datasetStepUnsynced:
      (
        "The dataset '{1}' is changed on disk but may not stay so after a crash: {2} failed ({3}).",
        "Le jeu de données '{1}' est modifié sur le disque mais peut ne pas le rester après un plantage : {2} a "
          + "échoué ({3})."
      )
    case .datasetStepOpening: ("opening {1}", "l'ouverture de {1}")
    case .datasetStepCuttingBack: ("cutting {1} back", "la remise de {1} à sa taille d'avant")
    case .datasetStepWriting: ("writing {1}", "l'écriture de {1}")
    case .datasetStepSyncing: ("syncing {1}", "la synchronisation de {1}")
    case .datasetStepSyncingFolderAt: ("syncing the folder {1}", "la synchronisation du dossier {1}")
    case .datasetStepSyncingFolder: ("syncing the folder", "la synchronisation du dossier")
    case .datasetStepRemoving: ("removing {1}", "la suppression de {1}")
    case .datasetStepBuilding: ("building it", "sa construction")
    case .keptTemporaryRemoved:
      (
        "Removed '{1}': a write that a stop interrupted before it was answered.",
        "'{1}' supprimé : une écriture qu'un arrêt a interrompue avant qu'elle soit répondue."
      )
    case .keptJournalOrphaned:
      (
        "The journal '{1}' has no base beside it (its dataset was removed): moved to '{2}'.",
        "Le journal '{1}' n'a pas de base à côté de lui (son jeu de données a été supprimé) : déplacé vers '{2}'."
      )
    case .keptJournalStale:
      (
        "The journal '{1}' does not go on from the base '{2}' (a new base that a stop left it behind): moved to "
          + "'{3}'; the base is served as it is.",
        "Le journal '{1}' ne fait pas suite à la base '{2}' (une nouvelle base qu'un arrêt a laissé derrière lui) : "
          + "déplacé vers '{3}' ; la base est servie telle quelle."
      )
    case .keptJournalUnmatched:
      (
        "The base '{2}' has no \"newsatlas\" version member (or one past the largest), so its journal '{1}' cannot "
          + "be matched to it: moved to '{3}'; the base is served as it is, at version 1.",
        "La base '{2}' n'a pas de membre de version \"newsatlas\" (ou un au-delà du plus grand), donc son journal "
          + "'{1}' ne peut lui être rattaché : déplacé vers '{3}' ; la base est servie telle quelle, en version 1."
      )
    case .keptJournalTailCut:
      (
        "The journal '{1}' ends with {3} bytes from byte {2} on that are no whole record (a write a stop cut short, "
          + "never answered): cut away and kept in '{5}'; the changes up to version {4} are served.",
        "Le journal '{1}' finit par {3} octets, à partir de l'octet {2}, qui ne sont pas un enregistrement entier "
          + "(une écriture coupée par un arrêt, jamais répondue) : coupés et gardés dans '{5}' ; les modifications "
          + "jusqu'à la version {4} sont servies."
      )
    case .keptJournalTailNotKept:
      (
        "The journal '{1}' ends with {3} bytes from byte {2} on that are no whole record (a write a stop cut short, "
          + "never answered); they could not be kept aside ({5}) and were cut away; the changes up to version {4} are "
          + "served.",
        "Le journal '{1}' finit par {3} octets, à partir de l'octet {2}, qui ne sont pas un enregistrement entier "
          + "(une écriture coupée par un arrêt, jamais répondue) ; ils n'ont pu être mis de côté ({5}) et ont été "
          + "coupés ; les modifications jusqu'à la version {4} sont servies."
      )
    case .keptNotMovedAside:
      (
        "The kept dataset '{1}' is not served: its journal '{2}' should be moved aside and could not be ({3}).",
        "Le jeu de données gardé '{1}' n'est pas servi : son journal '{2}' devait être mis de côté et n'a pu "
          + "l'être ({3})."
      )
    case .keptJournalDamaged:
      (
        "The kept dataset '{1}' is not served: its journal '{2}' is damaged at byte {3}, with changes answered "
          + "after it; to serve the base and the changes before the damage, cut the journal there (truncate -s {3} "
          + "'{2}') and start again, or PUT the dataset again.",
        "Le jeu de données gardé '{1}' n'est pas servi : son journal '{2}' est abîmé à l'octet {3}, avec des "
          + "modifications répondues après ; pour servir la base et les modifications d'avant le dommage, coupez le "
          + "journal là (truncate -s {3} '{2}') et redémarrez, ou envoyez de nouveau le jeu de données par PUT."
      )
    case .keptJournalForeign:
      (
        "The kept dataset '{1}' is not served: the first line of its journal '{2}' is not one this server writes "
          + "for this base (damaged, of another format, or naming a later base); the journal is left as it is: "
          + "remove it to serve the base alone, or PUT the dataset again.",
        "Le jeu de données gardé '{1}' n'est pas servi : la première ligne de son journal '{2}' n'est pas une que "
          + "ce serveur écrit pour cette base (abîmée, d'un autre format, ou nommant une base plus récente) ; le "
          + "journal est laissé tel quel : retirez-le pour servir la base seule, ou envoyez de nouveau le jeu de "
          + "données par PUT."
      )
    case .keptJournalUnreadable:
      (
        "The kept dataset '{1}' is not served: reading its journal '{2}' failed at byte {3} ({4}); the journal is "
          + "left as it is, start again once the disk reads.",
        "Le jeu de données gardé '{1}' n'est pas servi : la lecture de son journal '{2}' a échoué à l'octet {3} "
          + "({4}) ; le journal est laissé tel quel, redémarrez quand le disque se lit."
      )
    case .keptCannotServe:
      (
        "The kept dataset '{1}' cannot be served ({2}); remove it or PUT the dataset again.",
        "Le jeu de données gardé '{1}' ne peut pas être servi ({2}) ; retirez-le ou envoyez de nouveau le jeu de "
          + "données par PUT."
      )
    // acc30: a dataset's removal whose journal stays, a parameter to an endpoint that takes none
    case .serviceTakesNoParameter:
      (
        "This endpoint takes no parameter '{1}'; it takes none.",
        "Ce point d'accès ne prend pas de paramètre '{1}' ; il n'en prend aucun."
      )
    case .datasetRemovedJournalLeft:
      (
        "The dataset '{1}' is removed, but its journal '{2}' could not be removed ({3}); it names no base now, so "
          + "the next start moves it aside.",
        "Le jeu de données '{1}' est supprimé, mais son journal '{2}' n'a pas pu être supprimé ({3}) ; il ne nomme "
          + "plus de base, le prochain démarrage le met donc de côté."
      )
    case .clusterOptionRange: ("{1} is {2}, not {3}.", "{1} prend {2}, pas {3}.")
    case .clusterAcceptsZoom: ("a whole number from 0 to {1}", "un nombre entier de 0 à {1}")
    case .clusterAcceptsMaxZoom:
      (
        "a whole number from the lowest zoom ({1}) to {2}",
        "un nombre entier du zoom le plus bas ({1}) à {2}"
      )
    case .clusterAcceptsMinPoints: ("a whole number from 1 to {1}", "un nombre entier de 1 à {1}")
    case .clusterAcceptsRadius:
      (
        "a number of pixels above 0 and at most the extent ({1})",
        "un nombre de pixels au-dessus de 0 et au plus l'étendue ({1})"
      )
    case .clusterAcceptsExtent:
      ("a whole number of pixels from 1 to {1}", "un nombre entier de pixels de 1 à {1}")
    case .clusterAcceptsNodeSize: ("a whole number from {1} to {2}", "un nombre entier de {1} à {2}")
    case .clusterNoSuchId:
      (
        "No cluster has the id {1} in this index.",
        "Aucun groupe n'a l'identifiant {1} dans cet index."
      )
    case .clusterNotAtZoom:
      (
        "No cluster has the id {1} at zoom {2}.",
        "Aucun groupe n'a l'identifiant {1} au zoom {2}."
      )
    case .providerNoSources:
      (
        "NewsAPI lists no sources for {1}; --search-fallback searches its name instead.",
        "NewsAPI ne liste aucune source pour {1} ; --search-fallback cherche plutôt son nom."
      )
    case .providerNoCategorySources:
      (
        "NewsAPI lists no {1} sources for {2}; --search-fallback searches its name instead.",
        "NewsAPI ne liste aucune source {1} pour {2} ; --search-fallback cherche plutôt son nom."
      )
    case .providerNoFeeds:
      ("No feeds are configured for {1} ({2}).", "Aucun flux n'est configuré pour {1} ({2}).")
    case .providerFeedsNoCategories:
      (
        "Feeds have no categories, so they cannot answer {1}'s {2} headlines.",
        "Les flux n'ont pas de catégories : ils ne peuvent pas donner les titres {2} de {1}."
      )
    case .providerGDELTNoCategories:
      (
        "GDELT has no categories, so it cannot give {1}'s {2} headlines; ask without a category, or ask "
          + "NewsAPI (provider newsapi, with a key).",
        "GDELT n'a pas de catégories : il ne peut pas donner les titres {2} de {1} ; demandez sans "
          + "catégorie, ou demandez à NewsAPI (fournisseur newsapi, avec une clé)."
      )
    case .providerNoRouteGDELTOff:
      (
        "NewsAPI has no route for {1}, and GDELT is turned off here.",
        "NewsAPI n'a pas de route pour {1}, et GDELT est coupé ici."
      )
    case .providerNotNewsAPICountry:
      (
        "NewsAPI's top headlines cover 54 countries, and {1} is not one of them; GDELT and feeds have its news.",
        "Les titres de NewsAPI couvrent 54 pays, et {1} n'en fait pas partie ; GDELT et les flux ont ses "
          + "nouvelles."
      )
    case .serviceSourceNeedsNewsAPI:
      (
        "source asks NewsAPI for a source's headlines: use it with provider=newsapi or auto.",
        "source demande à NewsAPI les titres d'une source : utilisez-le avec provider=newsapi ou auto."
      )
    case .mixSourcesAndCountry:
      (
        "NewsAPI cannot mix sources with a country or a category; give one or the other.",
        "NewsAPI ne peut pas mêler des sources à un pays ou une catégorie ; donnez l'un ou l'autre."
      )
    case .topHeadlinesNeed:
      (
        "Top headlines need a country, a category, sources or a query.",
        "Les gros titres demandent un pays, une catégorie, des sources ou une requête."
      )
    case .searchNeeds:
      (
        "A search needs words to look for, sources or domains.",
        "Une recherche demande des mots, des sources ou des domaines."
      )
    case .searchWordsLong:
      (
        "NewsAPI takes search words up to 500 characters.",
        "NewsAPI prend des mots de recherche jusqu'à 500 caractères."
      )
    // A parameter as the front end calls it: NewsAPI's name (searchIn) or a flag (--search-in).
    case .notADate:
      (
        "'{1}' is not a date NewsAPI takes for {2}; give 2026-11-01 or 2026-11-01T10:00:00 (UTC unless it ends "
          + "with an offset).",
        "'{1}' n'est pas une date que NewsAPI prend pour {2} ; donnez 2026-11-01 ou 2026-11-01T10:00:00 (UTC "
          + "sauf si elle finit par un décalage)."
      )
    case .fromAfterTo:
      ("The {1} date {2} is after the {3} date {4}.", "La date {1} {2} est après la date {3} {4}.")
    case .searchInFields:
      (
        "{1} takes title, description and content, not '{2}'.",
        "{1} prend title, description et content, pas '{2}'."
      )
    case .pageSizeRange: ("{1} must be 1 to 100, not {2}.", "{1} doit aller de 1 à 100, pas {2}.")
    case .pageRange: ("{1} must be 1 or more, not {2}.", "{1} doit valoir 1 ou plus, pas {2}.")
    case .freePlanPages:
      (
        "The free plan stops at the first 100 results; page {1} of {2} goes past it.",
        "L'offre gratuite s'arrête aux 100 premiers résultats ; la page {1} de {2} va au-delà."
      )
    case .missingKey:
      (
        "No NewsAPI key: get a free one at https://newsapi.org/register and set it with export "
          + "NEWSAPI_KEY=your-key.",
        "Pas de clé NewsAPI : obtenez-en une gratuite sur https://newsapi.org/register et réglez-la avec export "
          + "NEWSAPI_KEY=votre-clé."
      )
    case .quotaUsedUp:
      (
        "NewsAPI refused the request because the key's quota is used up ({1}): {2}",
        "NewsAPI a refusé la requête car le quota de la clé est épuisé ({1}) : {2}"
      )
    case .tryAgainIn: (" Try again in {1} seconds.", " Réessayez dans {1} secondes.")
    case .freePlanAllows:
      (
        " The free plan allows 100 requests a day, 50 every 12 hours; try again later.",
        " L'offre gratuite permet 100 requêtes par jour, 50 toutes les 12 heures ; réessayez plus tard."
      )
    case .beyondPlan:
      (
        "NewsAPI says this is beyond the key's plan ({1}): {2}",
        "NewsAPI dit que cela dépasse l'abonnement de la clé ({1}) : {2}"
      )
    case .keyNotAccepted:
      ("NewsAPI did not accept the key ({1}): {2}", "NewsAPI n'a pas accepté la clé ({1}) : {2}")
    case .serviceAnswered: ("NewsAPI answered HTTP {1} ({2}): {3}", "NewsAPI a répondu HTTP {1} ({2}) : {3}")
    case .notItsJSON:
      (
        "NewsAPI answered HTTP {1} with something that is not its JSON ({2}).",
        "NewsAPI a répondu HTTP {1} avec autre chose que son JSON ({2})."
      )
    case .answerEmpty: ("an empty answer", "une réponse vide")
    case .answerBegins: ("it begins '{1}'", "la réponse commence par '{1}'")
    case .notCached:
      (
        "Offline, and the cache has no answer for {1}; run the command once online first.",
        "Hors ligne, et le cache n'a pas de réponse pour {1} ; lancez d'abord la commande une fois en ligne."
      )
    case .budgetSpent:
      (
        "Sending would go past the plan's budget ({1} of {2} requests in 24 hours, {3} of {4} in 12 hours), so "
          + "nothing was sent.",
        "Envoyer dépasserait le budget de l'abonnement ({1} requêtes sur {2} en 24 heures, {3} sur {4} en 12 "
          + "heures), donc rien n'a été envoyé."
      )
    case .planOverBudget:
      (
        "This needs {1} and the plan's budget has {2} left ({3} of {4} used in 24 hours, {5} of {6} in 12 "
          + "hours), so nothing was sent.",
        "Il faut {1} et le budget de l'abonnement en a encore {2} ({3} sur {4} utilisées en 24 heures, {5} sur "
          + "{6} en 12 heures), donc rien n'a été envoyé."
      )
    case .nextFreeIn: (" The next request frees up in {1}.", " La prochaine requête se libère dans {1}.")
    case .cacheCouldNotCount:
      (
        "The cache at {1}, which counts every request against the budget, could not count this one ({2}), so "
          + "nothing was sent; try again in a moment.",
        "Le cache à {1}, qui décompte chaque requête du budget, n'a pas pu compter celle-ci ({2}), donc rien "
          + "n'a été envoyé ; réessayez dans un instant."
      )
    case .feedAnswered: ("The feed {1} answered HTTP {2}.", "Le flux {1} a répondu HTTP {2}.")
    case .feedUnreadable: ("The feed {1} could not be read: {2}", "Le flux {1} n'a pas pu être lu : {2}")
    case .mbtilesCannotCreate:
      (
        "Cannot create {1} ({2}); check the folder exists and is writable.",
        "Impossible de créer {1} ({2}) ; vérifiez que le dossier existe et qu'on peut y écrire."
      )
    case .mbtilesNotAFile:
      (
        "{1} is {2}, not a regular file; give a new file or an MBTiles file to replace.",
        "{1} est {2}, pas un fichier ordinaire ; donnez un nouveau fichier ou un fichier MBTiles à remplacer."
      )
    case .mbtilesASymbolicLink: ("a symbolic link", "un lien symbolique")
    case .mbtilesAFolder: ("a folder", "un dossier")
    case .mbtilesAFIFO: ("a FIFO", "une FIFO")
    case .mbtilesADevice: ("a device", "un périphérique")
    case .mbtilesNotRegular: ("not a regular file", "autre chose")
    case .fileKindRegular: ("a regular file", "un fichier ordinaire")
    case .fileKindSpecial: ("a special file (a socket)", "un fichier spécial (une socket)")
    case .mbtilesIsTheInput:
      (
        "{1} is the input file {2}; give another file to write.",
        "{1} est le fichier d'entrée {2} ; donnez un autre fichier à écrire."
      )
    case .mbtilesCannotMove:
      (
        "Cannot move the finished file to {1} ({2}).",
        "Impossible de déplacer le fichier terminé vers {1} ({2})."
      )
    case .mbtilesFailed: ("Cannot {1} in {2} ({3}).", "Impossible de {1} dans {2} ({3}).")
    case .mbtilesNoDatabase: ("no database", "pas de base")
    case .mbtilesStepPrepare: ("prepare the tile insert", "préparer l'insertion des tuiles")
    case .mbtilesStepMetadata: ("write metadata", "écrire les métadonnées")
    case .mbtilesStepTile: ("write tile {1}", "écrire la tuile {1}")
    case .mbtilesStepSetUp: ("set up the file", "préparer le fichier")
    case .outOfMemory: ("out of memory", "mémoire épuisée")
    case .tilesGzipCannotStart: ("gzip could not start ({1}).", "gzip n'a pas pu démarrer ({1}).")
    case .tilesGzipFailed: ("gzip failed on tile {1}.", "gzip a échoué sur la tuile {1}.")
    case .feedDeclaresEntity:
      (
        "The feed declares an XML entity (<!ENTITY ...>); such feeds are refused, so no entity is expanded and "
          + "nothing it points to is read.",
        "Le flux déclare une entité XML (<!ENTITY ...>) ; de tels flux sont refusés, si bien qu'aucune entité "
          + "n'est développée et que rien de ce qu'elle désigne n'est lu."
      )
    case .feedNotWellFormed:
      (
        "The feed is not well-formed XML (line {1}: {2}).",
        "Le flux n'est pas du XML bien formé (ligne {1} : {2})."
      )
    case .feedNoReason: ("libxml2 gave no reason", "libxml2 n'a pas donné de raison")
    case .feedNotAFeed:
      (
        "The document's root element is <{1}>, not RSS 2.0's <rss>, RSS 1.0's <rdf:RDF> or Atom's <feed> or <entry>.",
        "L'élément racine du document est <{1}>, et non <rss> de RSS 2.0, <rdf:RDF> de RSS 1.0 ou <feed> ou "
          + "<entry> d'Atom."
      )
    case .feedEmpty: ("The feed is empty.", "Le flux est vide.")
    case .feedTooLarge:
      (
        "The feed's {1} bytes are more than the parser accepts (2 GiB).",
        "Les {1} octets du flux dépassent ce que l'analyseur accepte (2 Gio)."
      )
    case .feedNoParser:
      (
        "libxml2 could not make a parser (out of memory).",
        "libxml2 n'a pas pu créer d'analyseur (mémoire épuisée)."
      )
    case .gdeltRefused: ("GDELT refused the query: {1}", "GDELT a refusé la requête : {1}")
    case .gdeltRequestDone:
      (
        "GDELT request {1} of at most {2} · {3} · {4} · {5} s",
        "requête GDELT {1} sur {2} au plus · {3} · {4} · {5} s"
      )
    case .gdeltRequestCountries: ("{1} countries", "{1} pays")
    case .gdeltRequestFailed: ("no answer", "sans réponse")
    case .gdeltSearchCannot:
      (
        "Without a NewsAPI key, search asks GDELT, which has no {1}; set a key for it (newsatlas config set api-key).",
        "Sans clé NewsAPI, search interroge GDELT, qui n'a pas de {1} ; réglez une clé pour cela (newsatlas config set api-key)."
      )
    case .gdeltSearchOf: ("GDELT's articles for '{1}'", "les articles de GDELT pour '{1}'")
    case .searchCountGDELT: ("{1} articles from GDELT (no key needed)", "{1} articles de GDELT (sans clé)")
    case .searchCountGDELTOne: ("1 article from GDELT (no key needed)", "1 article de GDELT (sans clé)")
    case .postgresURLShape:
      (
        "--postgres takes a URL such as postgres://USER:PASSWORD@HOST:5432/DATABASE (?host=/run/postgresql for a socket); the one given is not one, and is not repeated here: it may hold a password.",
        "--postgres prend une URL telle que postgres://UTILISATEUR:MOT_DE_PASSE@HÔTE:5432/BASE (?host=/run/postgresql pour un socket) ; celle donnée n'en est pas une, et n'est pas répétée ici : elle peut contenir un mot de passe."
      )
    case .postgresSSLMode:
      (
        "sslmode takes disable, prefer or require, not '{1}'.",
        "sslmode prend disable, prefer ou require, pas '{1}'."
      )
    case .postgresURLParameter:
      (
        "A PostgreSQL URL takes sslmode, host, port, user, password, dbname, application_name and connect_timeout, not '{1}'.",
        "Une URL PostgreSQL prend sslmode, host, port, user, password, dbname, application_name et connect_timeout, pas '{1}'."
      )
    case .postgresTableShape:
      (
        "'{1}' is not a table name; give TABLE or SCHEMA.TABLE (letters, digits, '_' and '$').",
        "'{1}' n'est pas un nom de table ; donnez TABLE ou SCHÉMA.TABLE (lettres, chiffres, '_' et '$')."
      )
    case .postgresColumnShape:
      (
        "'{1}' is not a column name (letters, digits, '_' and '$').",
        "'{1}' n'est pas un nom de colonne (lettres, chiffres, '_' et '$')."
      )
    case .postgresConnect:
      (
        "Cannot connect to PostgreSQL at {1}: {2}.",
        "Impossible de se connecter à PostgreSQL sur {1} : {2}."
      )
    case .postgresRefused:
      (
        "PostgreSQL at {1} refused: {2}.",
        "PostgreSQL sur {1} a refusé : {2}."
      )
    case .postgresNoTable:
      (
        "PostgreSQL at {1} has no table {2}.",
        "PostgreSQL sur {1} n'a pas de table {2}."
      )
    case .postgresNoColumn:
      (
        "The table {1} has no column {2}.",
        "La table {1} n'a pas de colonne {2}."
      )
    case .postgresNotGeometry:
      (
        "The column {2} of {1} is not a geometry or geography column.",
        "La colonne {2} de {1} n'est pas une colonne geometry ou geography."
      )
    case .postgresNoGeometry:
      (
        "The table {1} has no geometry or geography column.",
        "La table {1} n'a pas de colonne geometry ou geography."
      )
    case .postgresScratch:
      (
        "Cannot write the table's points to {1}: {2}.",
        "Impossible d'écrire les points de la table dans {1} : {2}."
      )
    case .postgresSkipped:
      (
        "{1}: {2} rows without a Point geometry (NULL, empty or another type) are left out.",
        "{1} : {2} lignes sans géométrie Point (NULL, vide ou d'un autre type) sont laissées de côté."
      )
    case .postgresNoURL:
      (
        "--table needs a database: give --postgres URL or set DATABASE_URL.",
        "--table demande une base : donnez --postgres URL ou définissez DATABASE_URL."
      )
    case .postgresOptionsWithoutTable:
      (
        "--postgres, --geometry, --id and --properties go with --table.",
        "--postgres, --geometry, --id et --properties vont avec --table."
      )
    case .postgresKeptHidden:
      (
        "The dataset '{1}' kept in {2} is not served: the table {3} has its name.",
        "Le jeu de données '{1}' gardé dans {2} n'est pas servi : la table {3} porte son nom."
      )
    case .postgresLoaded:
      (
        "{1}: {2} points from PostgreSQL in {3} s",
        "{1} : {2} points lus dans PostgreSQL en {3} s"
      )
    case .serviceDatasetFromTable:
      (
        "The dataset '{1}' is the PostgreSQL table {2}: add and remove its features here, or change the table itself.",
        "Le jeu de données '{1}' est la table PostgreSQL {2} : ajoutez-y et retirez-en des points ici, ou changez la table elle-même."
      )
    case .postgresNoKey:
      (
        "The table {1} has no one-column primary key: name the column that identifies a row with --id (replicas follow changes by it).",
        "La table {1} n'a pas de clé primaire d'une colonne : nommez la colonne qui identifie une ligne avec --id (les répliques suivent les changements par elle)."
      )
    case .postgresTrigger:
      (
        "Cannot install the trigger that follows {1}'s changes: {2}. A DBA can install it once (Documentation/HTTP.md, Datasets from PostGIS tables).",
        "Impossible d'installer le déclencheur qui suit les changements de {1} : {2}. Un DBA peut l'installer une fois (Documentation/HTTP.md, Datasets from PostGIS tables)."
      )
    case .postgresConnectionLost:
      (
        "The connection to PostgreSQL was lost.",
        "La connexion à PostgreSQL a été perdue."
      )
    case .postgresApplyFailed:
      (
        "The table's changes could not be served; they are read again.",
        "Les changements de la table n'ont pas pu être servis ; ils sont relus."
      )
    case .postgresNotAColumn:
      (
        "The table {1} has no column {2} to keep the property of that name.",
        "La table {1} n'a pas de colonne {2} pour garder la propriété de ce nom."
      )
    case .postgresWriteRefused:
      (
        "PostgreSQL refused the write to {1}: {2}.",
        "PostgreSQL a refusé l'écriture dans {1} : {2}."
      )
    case .postgresSomeIDs:
      (
        "Give every feature written to {1} an id, or none (then the column {2} gives each its default); some have one and some not.",
        "Donnez un id à chaque point écrit dans {1}, ou à aucun (la colonne {2} donne alors à chacun sa valeur par défaut) ; certains en ont un et d'autres non."
      )
    case .postgresUnkeyed:
      (
        "{1}: {2} rows whose {3} is NULL are left out: replicas follow rows by it.",
        "{1} : {2} lignes dont la colonne {3} est NULL sont laissées de côté : les répliques suivent les lignes par elle."
      )
    case .postgresLogNotPruned:
      (
        "{1}: the trigger is an earlier version's, which this role may not replace: the table is followed, but newsatlas.changes keeps every change; a DBA can install the new one (Documentation/HTTP.md, Live on every replica).",
        "{1} : le déclencheur est celui d'une version antérieure, que ce rôle ne peut pas remplacer : la table est suivie, mais newsatlas.changes garde chaque changement ; un DBA peut installer le nouveau (Documentation/HTTP.md, Live on every replica)."
      )
    case .postgresFollowingAgain:
      (
        "{1}: connected again; reading the changes committed meanwhile.",
        "{1} : reconnecté ; lecture des changements enregistrés entre-temps."
      )
    case .serviceMaxLagNegative:
      (
        "maxLag is a number of seconds, 0 or more; {1} is not.",
        "maxLag est un nombre de secondes, 0 ou plus ; {1} n'en est pas un."
      )
    case .postgresFollowing:
      (
        "{1}: following changes to {2} ({3})",
        "{1} : suivi des changements de {2} ({3})"
      )
    case .serviceTableNotYetServed:
      (
        "The change is committed to {1} but not yet served here after {2} s: it will be once this server reads it.",
        "Le changement est enregistré dans {1} mais pas encore servi ici après {2} s : il le sera dès que ce serveur l'aura lu."
      )
    case .servePostgresHelp:
      (
        "A PostgreSQL database whose --table tables are served: postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: DATABASE_URL).",
        "Une base PostgreSQL dont les tables --table sont servies : postgres://UTILISATEUR:MOT_DE_PASSE@HÔTE:PORT/BASE (par défaut : DATABASE_URL)."
      )
    case .serveTableHelp:
      (
        "A PostGIS table served as a dataset named after it, kept as the table changes: TABLE or SCHEMA.TABLE (repeatable).",
        "Une table PostGIS servie comme jeu de données de son nom, tenue à jour des changements de la table : TABLE ou SCHÉMA.TABLE (répétable)."
      )
    case .serveGeometryHelp:
      (
        "The tables' geometry column (default: each table's first geometry or geography column).",
        "La colonne de géométrie des tables (par défaut : la première colonne geometry ou geography de chacune)."
      )
    case .serveIdHelp:
      (
        "The tables' column whose value is each feature's id, by which replicas follow changes (default: the one-column primary key).",
        "La colonne des tables dont la valeur est l'identifiant de chaque entité, par laquelle les répliques suivent les changements (par défaut : la clé primaire d'une colonne)."
      )
    case .servePropertiesHelp:
      (
        "The tables' columns kept as properties, comma-separated (default: all but the geometry and the id).",
        "Les colonnes des tables gardées comme propriétés, séparées par des virgules (par défaut : toutes sauf la géométrie et l'identifiant)."
      )
    case .gdeltTurnTooFar:
      (
        "GDELT's next turn is {1} seconds away, longer than the {2} seconds this server waits: try again then.",
        "Le prochain tour de GDELT est dans {1} secondes, au-delà des {2} secondes qu'attend ce serveur : "
          + "réessayez à ce moment-là."
      )
    case .gdeltAnswered: ("GDELT answered HTTP {1}: {2}", "GDELT a répondu HTTP {1} : {2}")
    case .gdeltNotItsJSON:
      (
        "GDELT answered HTTP {1} with something that is not its JSON ({2}).",
        "GDELT a répondu HTTP {1} avec autre chose que son JSON ({2})."
      )
    case .gdeltOff:
      ("GDELT is turned off here, so it cannot answer.", "GDELT est coupé ici, il ne peut donc pas répondre.")
    case .noRouteGDELTOff:
      (
        "NewsAPI has no route for {1}, and GDELT is turned off here.",
        "NewsAPI n'a pas de route pour {1}, et GDELT est coupé ici."
      )
    case .noFeedsFor: ("No feeds are configured for {1} ({2}).", "Aucun flux n'est configuré pour {1} ({2}).")

    // MARK: A headlines request (the command line's flags and the service's query alike)
    case .nameTheCountries:
      ("Name the countries with one of {1}.", "Nommez les pays avec l'une des options {1}.")
    case .withZoom: ("{1} (with {2})", "{1} (avec {2})")
    case .listAnd: ("{1} and {2}", "{1} et {2}")
    case .listOr: ("{1} or {2}", "{1} ou {2}")
    case .countriesTakes:
      (
        "{1} takes codes or names separated by commas, such as fr,de,it.",
        "{1} prend des codes ou des noms séparés par des virgules, comme fr,de,it."
      )
    case .nearTakes:
      (
        "{1} takes LAT,LON (or \"LAT LON\"), for example 48.85,2.35.",
        "{1} prend LAT,LON (ou \"LAT LON\"), par exemple 48.85,2.35."
      )
    case .clusterNeedsZoom:
      (
        "{1} needs the {2} of the map its id came from.",
        "{1} demande le {2} de la carte d'où vient son identifiant."
      )
    case .zoomNotANumber:
      ("{1} must be a decimal number, not '{2}'.", "{1} doit être un nombre décimal, pas '{2}'.")
    case .clusterIdTooLarge:
      (
        "No map has a cluster with an id as large as {1} (at most 18 digits); take the id from a cluster's "
          + "cluster_id.",
        "Aucune carte n'a de groupe d'identifiant aussi grand que {1} (18 chiffres au plus) ; prenez l'identifiant "
          + "dans le cluster_id d'un groupe."
      )
    case .clusterIdShape:
      (
        "A cluster id is a whole number, 0 or more, not '{1}'.",
        "Un identifiant de groupe est un nombre entier, 0 ou plus, pas '{1}'."
      )
    case .categoryAndCategories: ("Give {1} or {2} all, not both.", "Donnez {1} ou {2} all, pas les deux.")
    case .categoriesTakes:
      (
        "{1} takes 'all' or categories separated by commas (business,sports), not '{2}'.",
        "{1} prend 'all' ou des catégories séparées par des virgules (business,sports), pas '{2}'."
      )
    case .pageSizeFlag:
      (
        "{1} must be 1 to 100 (a whole number), not '{2}'.",
        "{1} doit aller de 1 à 100 (un nombre entier), pas '{2}'."
      )
    case .unknownCountry:
      (
        "'{1}' is not one of NewsAPI's 54 countries by code or name, such as fr or France; 'newsatlas "
          + "countries' lists them.",
        "'{1}' n'est pas un des 54 pays de NewsAPI par code ou par nom, comme fr ou France ; 'newsatlas "
          + "countries' les liste."
      )
    case .unknownWorldCountry:
      (
        "'{1}' is not a country by code or name, such as es or Spain; 'newsatlas countries --news-countries "
          + "world' lists them.",
        "'{1}' n'est pas un pays par code ou par nom, comme es ou Espagne ; 'newsatlas countries "
          + "--news-countries world' les liste."
      )
    case .ambiguousCountry: ("'{1}' could be {2}; give one code.", "'{1}' peut être {2} ; donnez un code.")
    case .andMore: ("{1} and {2} more", "{1} et {2} de plus")

    // MARK: The service's own sentences
    case .serviceNoNews:
      (
        "This server was started with --no-news, so it serves no headlines.",
        "Ce serveur a été lancé avec --no-news, il ne sert donc aucun titre."
      )
    case .serviceNoCache:
      (
        "{1} Without it no request can be counted, so this server sends none.",
        "{1} Sans lui aucune requête ne peut être comptée, donc ce serveur n'en envoie aucune."
      )
    case .serveNoCacheWarning:
      ("{1} The server answers no headlines.", "{1} Le serveur ne répond à aucun titre.")
    case .serviceNothingAt:
      (
        "Nothing is at {1}; GET /openapi.json lists the endpoints.",
        "Rien ne se trouve à {1} ; GET /openapi.json liste les points d'accès."
      )
    case .serviceRequestFailed: ("The request failed ({1}).", "La requête a échoué ({1}).")
    case .serviceFailed: ("The server failed to answer: {1}.", "Le serveur n'a pas pu répondre : {1}.")
    case .serviceUnknownDataset:
      (
        "No dataset is named '{1}'; /v1/datasets lists them.",
        "Aucun jeu de données ne s'appelle '{1}' ; /v1/datasets les liste."
      )
    case .serviceUnknownParameter:
      (
        "This endpoint takes no parameter '{1}'; it takes {2}.",
        "Ce point d'accès ne prend pas de paramètre '{1}' ; il prend {2}."
      )
    case .serviceParameterTwice:
      (
        "The parameter '{1}' is given more than once; give it once.",
        "Le paramètre '{1}' est donné plusieurs fois ; donnez-le une fois."
      )
    case .serviceGiveLatLon:
      (
        "Give lat and lon in degrees (for example lat=48.85&lon=2.35).",
        "Donnez lat et lon en degrés (par exemple lat=48.85&lon=2.35)."
      )
    case .serviceWholeNumber:
      (
        "{1} must be a whole number, {2} or more, not '{3}'.",
        "{1} doit être un nombre entier, {2} ou plus, pas '{3}'."
      )
    case .serviceDecimal:
      ("{1} must be a decimal number, not '{2}'.", "{1} doit être un nombre décimal, pas '{2}'.")
    case .serviceGiveZoom:
      ("Give zoom, 0 to 31 (for example zoom=3).", "Donnez zoom, de 0 à 31 (par exemple zoom=3).")
    case .serviceGiveTile:
      (
        "Give a tile as a whole zoom with x and y, each a whole number from 0 to {1} at zoom {2}, not "
          + "'{3}' (for example zoom=7&x=64&y=44).",
        "Donnez une tuile par un zoom entier avec x et y, chacun un nombre entier de 0 à {1} au zoom {2}, pas "
          + "'{3}' (par exemple zoom=7&x=64&y=44)."
      )

    // MARK: The service's favourite sources, checked before the map is offered them
    case .serveFavouriteLeftOut:
      (
        "A favourite source is not offered to the map: {1}",
        "Une source favorite n'est pas proposée à la carte : {1}"
      )
    case .serveFavouritesUnchecked:
      (
        "The favourite sources are not offered to the map: NewsAPI's sources list, which they are checked "
          + "against, could not be had.",
        "Les sources favorites ne sont pas proposées à la carte : la liste des sources de NewsAPI, à laquelle "
          + "elles sont comparées, n'a pas pu être obtenue."
      )

    // MARK: GeoFormats: files, coordinates, filters and JSON, as their readers refuse them
    case .formatNotValid:
      (
        "'{1}' is not valid {2} at line {3}, column {4} (byte {5}): {6}.",
        "'{1}' n'est pas du {2} valide à la ligne {3}, colonne {4} (octet {5}) : {6}."
      )
    case .formatEndsTooEarly: ("the text ends too early", "le texte s'arrête trop tôt")
    case .formatEndsInsideValue: ("the text ends inside a value", "le texte s'arrête au milieu d'une valeur")
    case .formatExpectedMemberName:
      ("expected a quoted member name", "un nom de membre entre guillemets était attendu")
    case .formatExpectedColon:
      ("expected ':' after a member name", "':' était attendu après un nom de membre")
    case .formatNulByte:
      (
        "a NUL byte, so this is binary, not text",
        "un octet NUL : ce sont des données binaires, pas du texte"
      )
    case .formatLineTooLong:
      (
        "a line is longer than {1} bytes, so this is not a CSV of points",
        "une ligne dépasse {1} octets : ce n'est donc pas un CSV de points"
      )
    case .formatCollectionStart:
      (
        "a GeoJSON FeatureCollection starts with {1}",
        "une FeatureCollection GeoJSON commence par {1}"
      )
    case .formatNoFeaturesMember:
      (
        "this object has no \"features\"; give a GeoJSON FeatureCollection",
        "cet objet n'a pas de \"features\" ; donnez une FeatureCollection GeoJSON"
      )
    case .formatFeaturesArray: ("\"features\" must be an array", "\"features\" doit être un tableau")
    case .formatBetweenFeatures:
      ("expected ',' or ']' between features", "',' ou ']' était attendu entre les entités")
    case .formatBetweenMembers:
      (
        "expected ',' or '}' in the FeatureCollection",
        "',' ou '}' était attendu dans la FeatureCollection"
      )
    case .formatTextAfterCollection:
      (
        "unexpected text after the FeatureCollection",
        "du texte inattendu après la FeatureCollection"
      )
    case .jsonAt: ("line {1}, column {2} (byte {3}): {4}", "ligne {1}, colonne {2} (octet {3}) : {4}")
    case .jsonBetweenMembers: ("expected ',' or '}' in an object", "',' ou '}' était attendu dans un objet")
    case .jsonBetweenItems: ("expected ',' or ']' in an array", "',' ou ']' était attendu dans un tableau")
    case .jsonTextAfterValue:
      ("unexpected text after the JSON value", "du texte inattendu après la valeur JSON")
    case .jsonTooDeep: ("nesting deeper than 512 levels", "une imbrication de plus de 512 niveaux")
    case .jsonEndsBeforeValue:
      (
        "the text ends where a value was expected",
        "le texte s'arrête là où une valeur était attendue"
      )
    case .jsonUnexpectedCharacter: ("unexpected character '{1}'", "caractère inattendu '{1}'")
    case .jsonUnexpectedWord: ("unexpected word; expected {1}", "mot inattendu ; {1} était attendu")
    case .jsonEndsInsideObject: ("the text ends inside an object", "le texte s'arrête au milieu d'un objet")
    case .jsonEndsInsideArray: ("the text ends inside an array", "le texte s'arrête au milieu d'un tableau")
    case .jsonNumberDigits: ("a number needs digits", "un nombre doit avoir des chiffres")
    case .jsonNumberLeadingZero: ("a number cannot start with 0", "un nombre ne peut pas commencer par 0")
    case .jsonFractionDigits:
      ("a decimal point needs digits after it", "un point décimal doit être suivi de chiffres")
    case .jsonExponentDigits: ("an exponent needs digits", "un exposant doit avoir des chiffres")
    case .jsonEndsInsideString: ("the text ends inside a string", "le texte s'arrête au milieu d'une chaîne")
    case .jsonStringNotUTF8: ("a string is not valid UTF-8", "une chaîne n'est pas de l'UTF-8 valide")
    case .jsonControlCharacter:
      (
        "a control character must be escaped inside a string",
        "un caractère de contrôle doit être échappé dans une chaîne"
      )
    case .jsonEndsInsideEscape:
      ("the text ends inside an escape", "le texte s'arrête au milieu d'un échappement")
    case .jsonLoneSurrogate:
      (
        "a high surrogate must be followed by a low one",
        "un demi-codet haut doit être suivi d'un demi-codet bas"
      )
    case .jsonEscapeNotCharacter:
      ("{1} escape is not a character", "l'échappement {1} n'est pas un caractère")
    case .jsonUnknownEscape: ("unknown escape '{1}'", "échappement inconnu '{1}'")
    case .jsonEscapeHexDigits:
      (
        "a {1} escape needs four hex digits",
        "un échappement {1} demande quatre chiffres hexadécimaux"
      )
    case .coordinateLatitudeOutside:
      (
        "the latitude {1} is outside -90...90; latitudes are degrees north of the equator",
        "la latitude {1} est hors de -90...90 ; les latitudes sont des degrés au nord de l'équateur"
      )
    case .coordinateLongitudeOutside:
      (
        "the longitude {1} is outside -180...180; longitudes are degrees east of Greenwich",
        "la longitude {1} est hors de -180...180 ; les longitudes sont des degrés à l'est de Greenwich"
      )
    case .coordinateLatitudeNotNumber:
      (
        "The latitude '{1}' is not a number; give degrees as a decimal number such as 48.85.",
        "La latitude '{1}' n'est pas un nombre ; donnez des degrés en nombre décimal, comme 48.85."
      )
    case .coordinateLongitudeNotNumber:
      (
        "The longitude '{1}' is not a number; give degrees as a decimal number such as 48.85.",
        "La longitude '{1}' n'est pas un nombre ; donnez des degrés en nombre décimal, comme 48.85."
      )
    case .coordinateLatitudeNotFinite:
      (
        "The latitude {1} is not a finite number; give degrees as a decimal number.",
        "La latitude {1} n'est pas un nombre fini ; donnez des degrés en nombre décimal."
      )
    case .coordinateLongitudeNotFinite:
      (
        "The longitude {1} is not a finite number; give degrees as a decimal number.",
        "La longitude {1} n'est pas un nombre fini ; donnez des degrés en nombre décimal."
      )
    case .coordinateSentence: ("{1}.", "{1}.")
    case .coordinateABox: ("A box", "Une boîte")
    case .coordinateBox:
      (
        "{1} takes four numbers, west,south,east,north (for example -10,35,30,60), not '{2}'.",
        "{1} prend quatre nombres, ouest,sud,est,nord (par exemple -10,35,30,60), pas '{2}'."
      )
    case .coordinateZoom:
      (
        "{1} runs from {2} to {3} (above the highest clustered zoom, the raw points), not {4}.",
        "{1} va de {2} à {3} (au-delà du plus haut zoom regroupé, les points bruts), pas {4}."
      )
    case .coordinateATile: ("A tile", "Une tuile")
    case .coordinateTile:
      (
        "{1} takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '{2}'.",
        "{1} prend Z/X/Y avec un zoom de 0 à 30 (par exemple 2/1/1), pas '{2}'."
      )
    case .coordinateTileOffMap:
      (
        "At zoom {1} a tile's x and y run from 0 to {2}; '{3}' is off the map.",
        "Au zoom {1}, le x et le y d'une tuile vont de 0 à {2} ; '{3}' est hors de la carte."
      )
    case .fileCannotOpen: ("Cannot open '{1}': {2}.", "Impossible d'ouvrir '{1}' : {2}.")
    case .fileCannotRead: ("Cannot read '{1}': {2}.", "Impossible de lire '{1}' : {2}.")
    case .fileIsDirectory: ("'{1}' is a directory; give a file.", "'{1}' est un dossier ; donnez un fichier.")
    case .fileCannotWrite: ("Cannot write '{1}': {2}.", "Impossible d'écrire '{1}' : {2}.")
    case .fileCannotReadBack: ("Cannot read '{1}' back: {2}.", "Impossible de relire '{1}' : {2}.")
    case .featuresParquet:
      (
        "'{1}' is a Parquet file, which the command line does not read; the Python package does: python -m "
          + "newsatlas resolve --input FILE --output OUT.parquet, or newsatlas.read_points(FILE) for an index.",
        "'{1}' est un fichier Parquet, que la ligne de commande ne lit pas ; le paquet Python le lit : python -m "
          + "newsatlas resolve --input FICHIER --output SORTIE.parquet, ou newsatlas.read_points(FICHIER) pour un index."
      )
    case .featuresJSONArray:
      (
        "'{1}' is a JSON array; give a GeoJSON FeatureCollection (an object) or CSV.",
        "'{1}' est un tableau JSON ; donnez une FeatureCollection GeoJSON (un objet) ou du CSV."
      )
    case .featuresNoPoints:
      (
        "'{1}' holds no points; give GeoJSON or CSV with latitude,longitude columns.",
        "'{1}' ne contient aucun point ; donnez du GeoJSON ou du CSV avec des colonnes latitude,longitude."
      )
    case .featuresWrongType:
      (
        "'{1}' is not a GeoJSON FeatureCollection (its type is not \"FeatureCollection\").",
        "'{1}' n'est pas une FeatureCollection GeoJSON (son type n'est pas \"FeatureCollection\")."
      )
    case .featuresNotCollection:
      (
        "'{1}' is not a GeoJSON FeatureCollection; it needs \"type\" and \"features\".",
        "'{1}' n'est pas une FeatureCollection GeoJSON ; il lui faut \"type\" et \"features\"."
      )
    case .featureTwoIDs:
      (
        "Feature {1} in '{2}' has two \"id\" members; give it one: the id names it for DELETE.",
        "L'entité {1} de '{2}' a deux membres \"id\" ; donnez-lui-en un : l'id la nomme pour DELETE."
      )
    case .featureNotObject:
      ("Feature {1} in '{2}' is not an object.", "L'entité {1} de '{2}' n'est pas un objet.")
    case .featurePointNotNumeric:
      (
        "Feature {1} in '{2}' has a Point without numeric [longitude, latitude] coordinates.",
        "L'entité {1} de '{2}' a un Point sans coordonnées numériques [longitude, latitude]."
      )
    case .featureBadPoint: ("Feature {1} in '{2}': {3}", "Entité {1} de '{2}' : {3}")
    case .csvLineNotUTF8:
      ("Line {1} of '{2}' is not UTF-8 text.", "La ligne {1} de '{2}' n'est pas du texte UTF-8.")
    case .csvLoneCarriageReturn:
      (
        "Line {1} of '{2}' holds a carriage return (CR) that does not end it; lines end with LF or CRLF.",
        "La ligne {1} de '{2}' contient un retour chariot (CR) qui ne la termine pas ; les lignes finissent par LF ou "
          + "CRLF."
      )
    case .csvNoColumns:
      (
        "'{1}' has no latitude and longitude columns in its header; name them latitude and longitude.",
        "'{1}' n'a pas de colonnes latitude et longitude dans son en-tête ; nommez-les latitude et longitude."
      )
    case .csvTooFewFields:
      (
        "Line {1} of '{2}' has {3} fields; latitude and longitude are missing.",
        "La ligne {1} de '{2}' a {3} champs ; la latitude et la longitude manquent."
      )
    case .csvLatitudeNotNumber:
      (
        "Line {1} of '{2}': the latitude '{3}' is not a number.",
        "Ligne {1} de '{2}' : la latitude '{3}' n'est pas un nombre."
      )
    case .csvLongitudeNotNumber:
      (
        "Line {1} of '{2}': the longitude '{3}' is not a number.",
        "Ligne {1} de '{2}' : la longitude '{3}' n'est pas un nombre."
      )
    case .csvOutside: ("Line {1} of '{2}': {3}.", "Ligne {1} de '{2}' : {3}.")
    case .filterNotJSON: ("The filter is not JSON: {1}.", "Le filtre n'est pas du JSON : {1}.")
    case .filterNotATest: ("A filter must be a test such as {1}.", "Un filtre doit être un test, comme {1}.")
    case .filterTooDeep:
      ("The filter nests deeper than 64 levels.", "Le filtre s'imbrique sur plus de 64 niveaux.")
    case .filterObject: ("An object in a filter must be written {1}.", "Un objet dans un filtre s'écrit {1}.")
    case .filterNoOperator:
      (
        "Each expression in a filter starts with an operator such as \"==\"; an array value must be written {1}.",
        "Chaque expression d'un filtre commence par un opérateur comme \"==\" ; une valeur tableau s'écrit {1}."
      )
    case .filterOneArgument: ("'{1}' takes 1 argument, not {2}.", "'{1}' prend 1 argument, pas {2}.")
    case .filterArguments: ("'{1}' takes {2} arguments, not {3}.", "'{1}' prend {2} arguments, pas {3}.")
    case .filterPropertyName:
      (
        "'{1}' takes a property name as a string.",
        "'{1}' prend un nom de propriété, en chaîne."
      )
    case .filterArgumentTest:
      ("Each argument of '{1}' must be a test.", "Chaque argument de '{1}' doit être un test.")
    case .filterUnknownOperator:
      (
        "'{1}' is not a filter operator; use all, any, !, ==, !=, <, <=, >, >=, in, has, get or literal.",
        "'{1}' n'est pas un opérateur de filtre ; utilisez all, any, !, ==, !=, <, <=, >, >=, in, has, get ou literal."
      )

    // MARK: AtlasSettings and the feeds file: the settings file's refusals and private writes
    case .settingsFix:
      ("fix it or run 'newsatlas config reset'.", "corrigez-le ou lancez 'newsatlas config reset'.")
    case .settingsCannotOpen:
      (
        "Cannot read the settings file '{1}' ({2}); check its permissions, or run 'newsatlas config reset'.",
        "Impossible de lire le fichier de réglages '{1}' ({2}) ; vérifiez ses droits, ou lancez 'newsatlas config "
          + "reset'."
      )
    case .settingsNotRegular:
      (
        "The settings file '{1}' is not a regular file; remove it or run 'newsatlas config reset'.",
        "Le fichier de réglages '{1}' n'est pas un fichier ordinaire ; supprimez-le ou lancez 'newsatlas config reset'."
      )
    case .settingsTooLarge:
      (
        "The settings file '{1}' is larger than {2} KiB, so it is not settings; run 'newsatlas config reset'.",
        "Le fichier de réglages '{1}' dépasse {2} Kio, ce ne sont donc pas des réglages ; lancez 'newsatlas config "
          + "reset'."
      )
    case .settingsCannotRead:
      (
        "Cannot read the settings file '{1}' ({2}); run 'newsatlas config reset'.",
        "Impossible de lire le fichier de réglages '{1}' ({2}) ; lancez 'newsatlas config reset'."
      )
    case .settingsNotUTF8:
      (
        "The settings file '{1}' is not UTF-8 text; {2}",
        "Le fichier de réglages '{1}' n'est pas du texte UTF-8 ; {2}"
      )
    case .settingsNulByte:
      (
        "Line {1} of '{2}' holds a NUL byte; {3}",
        "La ligne {1} de '{2}' contient un octet NUL ; {3}"
      )
    case .settingsNotTOMLLine:
      (
        "Line {1} of '{2}' is not TOML ({3}); {4}",
        "La ligne {1} de '{2}' n'est pas du TOML (selon toml++ : {3}) ; {4}"
      )
    case .settingsNotTOML:
      (
        "The settings file '{1}' is not TOML; {2}",
        "Le fichier de réglages '{1}' n'est pas du TOML ; {2}"
      )
    case .settingsTable:
      (
        "Line {1} of '{2}' starts a table; the settings are plain key = value lines, without [sections] or dotted "
          + "keys; {3}",
        "La ligne {1} de '{2}' ouvre une table ; les réglages sont de simples lignes clé = valeur, sans [sections] ni "
          + "clés à points ; {3}"
      )
    case .settingsArrayValue:
      (
        "Line {1} of '{2}': the value of {3} is an array; a setting is a string, a whole number, true or false; {4}",
        "Ligne {1} de '{2}' : la valeur de {3} est un tableau ; un réglage est une chaîne, un nombre entier, true ou "
          + "false ; {4}"
      )
    case .settingsTableValue:
      (
        "Line {1} of '{2}': the value of {3} is a table; a setting is a string, a whole number, true or false; {4}",
        "Ligne {1} de '{2}' : la valeur de {3} est une table ; un réglage est une chaîne, un nombre entier, true ou "
          + "false ; {4}"
      )
    case .settingsUnreadableLine:
      (
        "Line {1} of '{2}' could not be read as a setting; {3}",
        "La ligne {1} de '{2}' n'a pas pu être lue comme un réglage ; {3}"
      )
    case .settingsNotKeyValue:
      (
        "The settings file '{1}' could not be read as key = value settings; {2}",
        "Le fichier de réglages '{1}' n'a pas pu être lu comme des réglages clé = valeur ; {2}"
      )
    case .settingsValueNUL:
      (
        "Line {1} of '{2}': the value of {3} holds a NUL character; {4}",
        "Ligne {1} de '{2}' : la valeur de {3} contient un caractère NUL ; {4}"
      )
    case .settingsValueNotWhole:
      (
        "Line {1} of '{2}': the value of {3} is not a whole number; {4}",
        "Ligne {1} de '{2}' : la valeur de {3} n'est pas un nombre entier ; {4}"
      )
    case .settingsValueType:
      (
        "Line {1} of '{2}': the value of {3} is a TOML {4}; a setting is a string, a whole number, true or false; {5}",
        "Ligne {1} de '{2}' : la valeur de {3} est de type TOML {4} ; un réglage est une chaîne, un nombre entier, "
          + "true ou false ; {5}"
      )
    case .settingsCannotEdit:
      (
        "Cannot change {1} in the settings file '{2}' without changing its other lines; edit the file by hand.",
        "Impossible de changer {1} dans le fichier de réglages '{2}' sans changer ses autres lignes ; modifiez le "
          + "fichier à la main."
      )
    case .settingsCannotRemove:
      (
        "Cannot remove the settings file '{1}': {2}",
        "Impossible de supprimer le fichier de réglages '{1}' : {2}"
      )
    case .settingsFoundIn: ("In {1}, {2}", "Dans {1}, {2}")
    case .theSettingsFile: ("the settings file", "le fichier de réglages")
    case .writeFailed:
      (
        "Cannot write {1} '{2}': {3} failed ({4}).",
        "Impossible d'écrire {1} '{2}' : {3} a échoué ({4})."
      )
    case .writeStepFolder: ("creating its folder", "la création de son dossier")
    case .writeStepTemporary: ("creating a temporary file", "la création d'un fichier temporaire")
    case .writeStepWrite: ("writing", "l'écriture")
    case .writeStepFollowingLink: ("following its symbolic link", "le suivi de son lien symbolique")
    case .writeStepSync: ("syncing", "la synchronisation")
    case .writeStepRename: ("renaming", "le renommage")
    case .writeStepOpenFolder:
      ("opening its folder to sync it", "l'ouverture de son dossier pour le synchroniser")
    case .writeStepSyncFolder: ("syncing its folder", "la synchronisation de son dossier")
    case .feedsURLTooLong:
      (
        "The feed URL '{1}…' is longer than {2} characters.",
        "L'URL de flux '{1}…' dépasse {2} caractères."
      )
    case .feedsNotURL:
      (
        "'{1}' is not a feed URL; give an http or https URL with a host, such as https://www.lemonde.fr/rss/une.xml.",
        "'{1}' n'est pas une URL de flux ; donnez une URL http ou https avec un hôte, comme "
          + "https://www.lemonde.fr/rss/une.xml."
      )
    case .feedsCannotRead:
      (
        "Cannot read the feeds file '{1}'; check its permissions.",
        "Impossible de lire le fichier des flux '{1}' ; vérifiez ses droits."
      )
    case .feedsNotRegular:
      (
        "The feeds file '{1}' is not a regular file; remove it.",
        "Le fichier des flux '{1}' n'est pas un fichier ordinaire ; supprimez-le."
      )
    case .feedsTooLarge:
      (
        "The feeds file '{1}' is larger than 1 MiB or cannot be read; remove it.",
        "Le fichier des flux '{1}' dépasse 1 Mio ou ne peut pas être lu ; supprimez-le."
      )
    case .feedsNotUTF8:
      (
        "The feeds file '{1}' is not UTF-8 text.",
        "Le fichier des flux '{1}' n'est pas du texte UTF-8."
      )
    case .feedsBadLine:
      (
        "Line {1} of the feeds file '{2}' is not a country and a URL (fr https://…); fix it or remove it with "
          + "'newsatlas feeds remove'.",
        "La ligne {1} du fichier des flux '{2}' n'est pas un pays et une URL (fr https://…) ; corrigez-la ou "
          + "retirez-la avec 'newsatlas feeds remove'."
      )
    case .feedsLinePlace: ("line {1} of the feeds file '{2}'", "la ligne {1} du fichier des flux '{2}'")
    case .theFeedsFile: ("the feeds file", "le fichier des flux")

    // MARK: Fetch: how a transfer failed (libcurl's and TLS's own words quoted as they are)
    case .httpInvalidURL:
      (
        "'{1}' is not an http or https URL with a host.",
        "'{1}' n'est pas une URL http ou https avec un hôte."
      )
    case .httpCannotResolve:
      (
        "The host {1} could not be found (DNS); check the address and the network.",
        "L'hôte {1} est introuvable (DNS) ; vérifiez l'adresse et le réseau."
      )
    case .httpRefused:
      (
        "{1} refused the connection; nothing is listening there.",
        "{1} a refusé la connexion ; rien n'y écoute."
      )
    case .httpReset:
      (
        "{1} closed the connection before the response was complete.",
        "{1} a fermé la connexion avant la fin de la réponse."
      )
    case .httpTimedOut: ("{1} did not answer within {2} seconds.", "{1} n'a pas répondu en {2} secondes.")
    case .httpTLS:
      ("The secure connection to {1} failed: {2}.", "La connexion sécurisée à {1} a échoué : {2}.")
    case .httpTooLarge:
      (
        "The response from {1} is larger than the {2}-byte limit.",
        "La réponse de {1} dépasse la limite de {2} octets."
      )
    case .httpTooManyRedirects: ("{1} redirected more than {2} times.", "{1} a redirigé plus de {2} fois.")
    case .httpRedirectRefused:
      (
        "{1} redirected the request to {2}, not the same scheme, host and port; the request and its headers go only "
          + "to {3}, so the redirect was not followed.",
        "{1} a redirigé la requête vers {2}, qui n'a pas le même schéma, hôte et port ; la requête et ses en-têtes ne "
          + "vont qu'à {3}, la redirection n'a donc pas été suivie."
      )
    case .httpInvalidHeader:
      (
        "The request header '{1}' holds a line break or a NUL, so nothing was sent.",
        "L'en-tête de requête '{1}' contient un saut de ligne ou un NUL, rien n'a donc été envoyé."
      )
    case .httpCancelled: ("The request to {1} was cancelled.", "La requête à {1} a été annulée.")
    case .httpFailed: ("The request to {1} failed: {2}.", "La requête à {1} a échoué : {2}.")
    case .httpNoThread:
      (
        "The HTTP client could not start its thread (pthread_create: {1}).",
        "Le client HTTP n'a pas pu démarrer son fil d'exécution (pthread_create : {1})."
      )
    case .curlCannotLoad:
      (
        "{1} could not be loaded; install libcurl (Debian: apt-get install libcurl4) or set NEWSATLAS_LIBCURL to "
          + "its path to fetch news.",
        "{1} n'a pas pu être chargé ; installez libcurl (Debian : apt-get install libcurl4) ou réglez "
          + "NEWSATLAS_LIBCURL sur son chemin pour récupérer les actualités."
      )
    case .curlLacks:
      (
        "The libcurl loaded lacks {1}; NewsAtlas needs libcurl 7.85 or later (Debian 12's libcurl4).",
        "La libcurl chargée n'a pas {1} ; NewsAtlas demande libcurl 7.85 ou plus récente (libcurl4 de Debian 12)."
      )
    case .curlCannotInit:
      (
        "libcurl could not initialise (curl_global_init failed).",
        "libcurl n'a pas pu s'initialiser (curl_global_init a échoué)."
      )
    case .curlNoTransferLoop:
      (
        "libcurl could not make a transfer loop (curl_multi_init failed).",
        "libcurl n'a pas pu créer de boucle de transferts (curl_multi_init a échoué)."
      )
    case .curlRefusedOption: ("libcurl refused {1} ({2}).", "libcurl a refusé {1} ({2}).")
    case .curlLoopFailed:
      (
        "libcurl's transfer loop failed ({1}: {2}).",
        "La boucle de transferts de libcurl a échoué ({1} : {2})."
      )
    case .httpShutDown:
      (
        "The HTTP client was shut down before the request could run.",
        "Le client HTTP a été arrêté avant que la requête ne parte."
      )

    // MARK: Store: the cache
    case .cacheForeign:
      (
        "The cache at {1} is another program's SQLite database; newsatlas leaves it as it is: move it, or set "
          + "XDG_CACHE_HOME to another folder.",
        "Le cache {1} est la base SQLite d'un autre programme ; newsatlas la laisse telle quelle : déplacez-la, ou "
          + "donnez à XDG_CACHE_HOME un autre dossier."
      )
    case .cacheCannotUse:
      (
        "The cache at {1} cannot be used now ({2}).",
        "Le cache {1} ne peut pas servir pour l'instant ({2})."
      )
    case .cacheMovedAside:
      (
        "The cache at {1} was unreadable; it was moved to {2} and a new one started.",
        "Le cache {1} était illisible ; il a été déplacé vers {2} et un nouveau a été commencé."
      )
    case .cacheNoneMade: ("No cache could be made at {1}.", "Aucun cache n'a pu être créé à {1}.")
    case .cacheNotSaved:
      (
        "The answer could not be saved in the cache ({1}); the command goes on without it.",
        "La réponse n'a pas pu être gardée dans le cache ({1}) ; la commande continue sans elle."
      )
    case .cacheNotCounted:
      (
        "The request could not be counted in the cache ({1}).",
        "La requête n'a pas pu être comptée dans le cache ({1})."
      )

    // MARK: Warnings of a stale, offline or partly malformed answer
    case .gdeltHeadlinesOf: ("GDELT's headlines of {1}", "les titres de GDELT pour {1}")
    case .theFeed: ("the feed {1}", "le flux {1}")
    case .staleOffline:
      (
        "Offline: the answer to {1} is from {2} ago.",
        "Hors ligne : la réponse à {1} date d'il y a {2}."
      )
    case .staleBudgetSpent:
      (
        "The plan's budget is spent: serving the answer to {1} from {2} ago.",
        "Le budget du forfait est épuisé : la réponse à {1} servie date d'il y a {2}."
      )
    case .staleAfterError:
      (
        "Serving the answer to {1} from {2} ago: {3}",
        "La réponse à {1} servie date d'il y a {2} : {3}"
      )
    case .staleFeedOffline:
      ("Offline: the feed {1} is from {2} ago.", "Hors ligne : le flux {1} date d'il y a {2}.")
    case .staleFeed: ("Serving the feed {1} from {2} ago: {3}", "Le flux {1} servi date d'il y a {2} : {3}")
    case .newsapiMalformedOne:
      (
        "NewsAPI's answer to {1} held 1 malformed article (a missing title, URL, source or date), left out.",
        "La réponse de NewsAPI à {1} contenait 1 article mal formé (sans titre, URL, source ou date), laissé de côté."
      )
    case .newsapiMalformed:
      (
        "NewsAPI's answer to {1} held {2} malformed articles (a missing title, URL, source or date), left out.",
        "La réponse de NewsAPI à {1} contenait {2} articles mal formés (sans titre, URL, source ou date), laissés de "
          + "côté."
      )
    case .gdeltMalformedOne:
      (
        "GDELT's answer held 1 malformed article (a missing title, link or date), left out.",
        "La réponse de GDELT contenait 1 article mal formé (sans titre, lien ou date), laissé de côté."
      )
    case .gdeltMalformed:
      (
        "GDELT's answer held {1} malformed articles (a missing title, link or date), left out.",
        "La réponse de GDELT contenait {1} articles mal formés (sans titre, lien ou date), laissés de côté."
      )

    // MARK: What the libraries said in English until now (issue 31 item 3's leftovers)
    case .gdeltTimespan:
      ("'{1}' is not a GDELT timespan, such as 1d.", "'{1}' n'est pas une durée GDELT, comme 1d.")
    case .newsapiOtherProvider:
      (
        "NewsAPI does not send another provider's request.",
        "NewsAPI n'envoie pas la requête d'un autre fournisseur."
      )
    case .newsapiRequest: ("NewsAPI's request {1}", "la requête NewsAPI {1}")
    case .curlCannotCreateTransfer:
      (
        "The request to {1} failed: libcurl could not create a transfer (curl_easy_init failed).",
        "La requête à {1} a échoué : libcurl n'a pas pu créer de transfert (curl_easy_init a échoué)."
      )
    case .curlCannotStartTransfer:
      (
        "The request to {1} failed: libcurl could not start the transfer ({2}).",
        "La requête à {1} a échoué : libcurl n'a pas pu démarrer le transfert ({2})."
      )
    case .curlLoadProblem: ("libcurl could not be loaded ({1}).", "libcurl n'a pas pu être chargée ({1}).")
    case .xmlCannotLoad:
      (
        "{1} could not be loaded ({2}); install libxml2 (Debian: apt-get install libxml2) or set NEWSATLAS_LIBXML2 "
          + "to its path to read feeds.",
        "{1} n'a pas pu être chargé ({2}) ; installez libxml2 (Debian : apt-get install libxml2) ou réglez "
          + "NEWSATLAS_LIBXML2 sur son chemin pour lire les flux."
      )
    case .xmlLacks:
      (
        "The libxml2 loaded lacks {1}; NewsAtlas reads feeds with libxml2 2.9 or later (Debian 12's libxml2).",
        "La libxml2 chargée n'a pas {1} ; NewsAtlas lit les flux avec libxml2 2.9 ou plus récente (libxml2 de "
          + "Debian 12)."
      )
    case .clusterTooManyPoints:
      (
        "An index holds at most {1} points, as supercluster's cluster ids do; these are {2}.",
        "Un index tient au plus {1} points, comme les identifiants de groupe de supercluster ; il y en a ici {2}."
      )
    case .searchDomainShape:
      (
        "'{1}' is not a domain name, such as bbc.co.uk (several are comma-separated: bbc.co.uk,lemonde.fr).",
        "'{1}' n'est pas un nom de domaine, comme bbc.co.uk (plusieurs sont séparés par des virgules : "
          + "bbc.co.uk,lemonde.fr)."
      )
    case .serviceUnknownCountry:
      (
        "'{1}' is not one of NewsAPI's 54 countries by code or name, such as fr or France; /v1/countries lists "
          + "them, /v1/countries?q=NAME finds one.",
        "'{1}' n'est pas un des 54 pays de NewsAPI par code ou par nom, comme fr ou France ; /v1/countries les "
          + "liste, /v1/countries?q=NOM en trouve un."
      )
    case .serviceNewsCountriesValue:
      (
        "newsCountries takes newsapi or world, not '{1}'.",
        "newsCountries prend newsapi ou world, pas '{1}'."
      )
    case .serviceUnknownWorldCountry:
      (
        "'{1}' is not a country by code or name, such as es or Spain; /v1/countries?newsCountries=world lists "
          + "them.",
        "'{1}' n'est pas un pays par code ou par nom, comme es ou Espagne ; /v1/countries?newsCountries=world "
          + "les liste."
      )

    // MARK: Batch rows: a run refused whole (its rows' own errors are data, in English)
    case .batchNulByte:
      (
        "{1} holds a NUL byte on line {2}; it is binary, not latitude,longitude text.",
        "{1} contient un octet NUL à la ligne {2} : ce sont des données binaires, pas du texte latitude,longitude."
      )
    case .batchRowFailed: ("line {1}: {2}.", "ligne {1} : {2}.")
    case .batchRowTooLong:
      (
        "the line is longer than {1} bytes, so it is not latitude,longitude",
        "la ligne dépasse {1} octets, ce n'est donc pas latitude,longitude"
      )
    case .batchRowCarriageReturn:
      (
        "the line holds a carriage return (CR) that does not end it; lines end with LF or CRLF",
        "la ligne contient un retour chariot (CR) qui ne la termine pas ; les lignes finissent par LF ou CRLF"
      )
    case .batchRowOneField:
      ("expected latitude,longitude but found 1 field", "latitude,longitude attendus mais 1 champ trouvé")
    case .batchRowFields:
      (
        "expected latitude,longitude but found {1} fields",
        "latitude,longitude attendus mais {1} champs trouvés"
      )
    case .batchRowLatitudeNotNumber:
      ("the latitude '{1}' is not a number", "la latitude '{1}' n'est pas un nombre")
    case .batchRowLongitudeNotNumber:
      ("the longitude '{1}' is not a number", "la longitude '{1}' n'est pas un nombre")
    case .theInput: ("the input", "l'entrée")
    case .theRequestBody: ("the request body", "le corps de la requête")
    case .batchHeaderColumns:
      (
        "The header puts latitude in column {1} and longitude in column {2}; batch rows read them from the first 16 "
          + "columns, so move them forward.",
        "L'en-tête met la latitude en colonne {1} et la longitude en colonne {2} ; les lignes de lot les lisent dans "
          + "les 16 premières colonnes, avancez-les donc."
      )
    case .batchHeaderColumnsOnLine:
      (
        "The header on line {1} puts latitude in column {2} and longitude in column {3}; batch rows read them from "
          + "the first 16 columns, so move them forward.",
        "L'en-tête de la ligne {1} met la latitude en colonne {2} et la longitude en colonne {3} ; les lignes de lot "
          + "les lisent dans les 16 premières colonnes, avancez-les donc."
      )
    }
  }
}
