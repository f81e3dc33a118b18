import AtlasMessages
import Foundation
import Testing

/// The interface in French (issue 31 item 3): help, messages and error sentences from the one catalogue, chosen
/// by the locale, `--lang` or the `interface-language` setting; English stays the default.
@Suite struct FrenchInterfaceTests {
  static let french = ["LANG": "fr_FR.UTF-8"]
  static let commands = [
    "nearest", "resolve", "clusters", "serve", "tiles", "countries", "headlines", "search", "sources",
    "feeds",
    "config", "quota",
  ]

  /// White space as one space: ArgumentParser wraps help at 80 columns.
  static func collapsed(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// A template's text before its first placeholder: what any use of it prints.
  static func fixedStart(_ template: String) -> String {
    String(template.prefix { $0 != "{" })
  }

  /// Every command's help in French, and its abstract, discussion and each option's help among it: none of the
  /// catalogue's English help is left.
  @Test func everyCommandsHelpIsFrench() throws {
    var helps = [try CLI.run(["--help"], environment: Self.french).stdout]
    for command in Self.commands {
      let help = try CLI.run([command, "--help"], environment: Self.french)
      #expect(help.status == 0, "\(command)")
      #expect(help.stdout.contains("APERÇU : "), "\(command)")
      helps.append(help.stdout)
    }
    let all = Self.collapsed(helps.joined(separator: "\n"))
    let helpMessages = Message.allCases.filter { message in
      message != .seeHelp
        && ["Help", "Abstract", "Discussion", "Title"].contains { message.rawValue.hasSuffix($0) }
    }
    #expect(helpMessages.count > 80)
    for message in helpMessages {
      let french = Self.collapsed(Self.fixedStart(message.texts.fr))
      let english = Self.collapsed(Self.fixedStart(message.texts.en))
      // Title: ArgumentParser writes an option group's title in capitals.
      let shown = message.rawValue.hasSuffix("Title") ? french.uppercased() : french
      #expect(all.contains(shown), "\(message) is not in the French help")
      if english.count >= 12 {
        #expect(!all.contains(english), "\(message) is in English in the French help")
      }
    }
    // English stays the default.
    let english = try CLI.run(["headlines", "--help"])
    #expect(Self.collapsed(english.stdout).contains(Message.headlinesAbstract.texts.en))
    #expect(!Self.collapsed(english.stdout).contains(Message.headlinesAbstract.texts.fr))
  }

  /// Command lines each command refuses, and the French sentence each is refused with, with the English one
  /// nowhere: the locale, --lang and the setting choose it alike.
  @Test(arguments: [
    (["nearest", "1"], "Donnez la longitude après la latitude 1."),
    (["nearest", "1", "2", "--count", "0"], "--count doit valoir 1 ou plus, pas 0."),
    (
      ["nearest", "--bogus", "1", "2"],
      "Option inconnue '--bogus' ; 'newsatlas nearest --help' liste les options."
    ),
    (
      ["resolve"],
      "Donnez une latitude et une longitude (par exemple : resolve 48.85 2.35), ou --input FICHIER."
    ),
    (
      ["clusters"],
      "Donnez --zoom Z (ou --expansion-zoom, --children, --leaves ou --tile) pour dire quoi écrire."
    ),
    (
      ["clusters", "--zoom", "1", "--sum", "a", "--max", "a"],
      "La propriété 'a' est agrégée deux fois ; donnez-la à une seule de --sum, --min et --max."
    ),
    (
      ["countries", "zz"],
      "Aucun pays d'actualité ne correspond à 'zz' ; essayez un code comme fr ou un nom comme Égypte."
    ),
    (
      ["headlines", "--country", "xx"],
      "'xx' n'est pas un pays par code ou par nom, comme es ou Espagne ; 'newsatlas countries "
        + "--news-countries world' les liste."
    ),
    (
      ["headlines", "--country", "xx", "--provider", "newsapi"],
      "'xx' n'est pas un des 54 pays de NewsAPI par code ou par nom, comme fr ou France ; "
        + "'newsatlas countries' les liste."
    ),
    (
      ["headlines", "--country", "fr", "--page-size", "0"],
      "--page-size doit aller de 1 à 100 (un nombre entier), pas '0'."
    ),
    (
      ["headlines", "--country", "fr", "--refresh", "--offline"],
      "--refresh interroge le service et --offline jamais ; donnez l'un des deux."
    ),
    (["serve", "--port", "70000"], "--port va de 0 à 65535, pas 70000."),
    (
      ["headlines", "--country", "fr", "--provider", "gdelt", "--category", "sports"],
      "GDELT n'a pas de catégories : il ne peut pas donner les titres sports de France ; demandez sans catégorie, "
        + "ou demandez à NewsAPI (fournisseur newsapi, avec une clé)."
    ),
    (
      ["config", "frob"],
      "'frob' n'est pas une action de config ; utilisez show, get, set, unset, reset ou path."
    ),
    (
      ["config", "set", "sort-by", "newest"], "Triez par relevancy, popularity ou publishedAt, pas 'newest'."
    ),
    (
      ["feeds", "frob"],
      "'frob' n'est pas une action de feeds ; utilisez add, remove, list, check ou path. Voir 'newsatlas help'."
    ),
    (
      ["search", "x", "--from", "yesterday"],
      "'yesterday' n'est pas une date que NewsAPI prend pour --from ; donnez 2026-11-01 ou 2026-11-01T10:00:00 "
        + "(UTC sauf si elle finit par un décalage)."
    ),
  ])
  func errorsAreFrench(arguments: [String], sentence: String) throws {
    let located = try CLI.run(arguments, environment: Self.french.merging(["NEWSAPI_KEY": "k"]) { $1 })
    #expect(located.status == 64 || located.status == 65, "\(arguments): \(located.stderr)")
    #expect(located.stderr == "newsatlas: \(sentence)\n", "\(arguments)")
    let flagged = try CLI.run(arguments + ["--lang", "fr"], environment: ["NEWSAPI_KEY": "k"])
    #expect(flagged.stderr == "newsatlas: \(sentence)\n", "\(arguments) --lang fr")
    let english = try CLI.run(arguments, environment: ["NEWSAPI_KEY": "k"])
    #expect(english.status == located.status && english.stderr.hasPrefix("newsatlas: "))
    #expect(english.stderr != located.stderr)
  }

  /// The `interface-language` setting, under --lang and over the locale; config show lists it.
  @Test func theSettingChoosesUnderTheFlag() throws {
    let result = try CLI.shell(
      """
      "$0" config set interface-language fr && "$0" nearest 1; "$0" nearest 1 --lang en
      LANG=fr_FR.UTF-8 "$0" config set interface-language en && "$0" nearest 1; "$0" config show
      """)
    #expect(
      result.stderrLines == [
        "newsatlas: Donnez la longitude après la latitude 1.",
        "newsatlas: Give the longitude after the latitude 1.",
        "newsatlas: Give the longitude after the latitude 1.",
      ])
    #expect(result.stdout.contains("interface-language"))
  }

  /// A settings file that cannot be read is refused in the locale's language, as with `--lang` (the file is read
  /// at launch, before the language is known: what it refused is worded again once the language is chosen).
  @Test func aBrokenSettingsFileIsRefusedInTheLocalesLanguage() throws {
    let script = """
      mkdir -p "$XDG_CONFIG_HOME/newsatlas" && printf 'country = "zz"\\n' > "$XDG_CONFIG_HOME/newsatlas/config.toml"
      LANG=fr_FR.UTF-8 "$0" headlines; "$0" headlines --lang fr; "$0" headlines
      """
    let result = try CLI.shell(script, environment: ["NEWSAPI_KEY": "k"])
    let lines = result.stderrLines
    #expect(lines.count == 3, "\(result.stderr)")
    #expect(lines.count == 3 && lines[0] == lines[1] && lines[0] != lines[2], "\(result.stderr)")
  }

  /// `--lang` before the command's name as after it (it was "Unknown option '--lang'", in French).
  @Test func langBeforeTheCommand() throws {
    let result = try CLI.run(["--lang", "fr", "nearest", "1"])
    #expect(result.status == 64 && result.stderr == "newsatlas: Donnez la longitude après la latitude 1.\n")
    let answer = try CLI.run(["--lang", "fr", "nearest", "48.85", "2.35"])
    #expect(answer.status == 0 && answer.stdout.contains(" cap "), "\(answer.stderr)")
  }

  /// A provider's reason for a country it cannot serve is said in the reader's language, in text and in JSON,
  /// where its machine code (`reasonCode`) is the same in every language: no feeds for Germany.
  @Test func aProvidersReasonIsFrench() throws {
    let text = try CLI.run(["headlines", "--country", "de", "--provider", "feeds", "--lang", "fr"])
    #expect(
      text.stdout.contains("Aucun flux n'est configuré pour Allemagne (de)."), "\(text.stdout) \(text.stderr)"
    )
    let json = try CLI.run([
      "headlines", "--country", "de", "--provider", "feeds", "--format", "json", "--lang", "fr",
    ])
    #expect(
      json.stdout.contains(
        #""reason":"Aucun flux n'est configuré pour Allemagne (de).","reasonCode":"providerNoFeeds""#),
      "\(json.stdout)")
    let english = try CLI.run(["headlines", "--country", "de", "--provider", "feeds", "--format", "json"])
    #expect(
      english.stdout.contains(
        #""reason":"No feeds are configured for Germany (de).","reasonCode":"providerNoFeeds""#),
      "\(english.stdout)")
  }

  /// French text output: country names, table words and durations.
  @Test func outputIsFrench() throws {
    let nearest = try CLI.run(["nearest", "48.85", "2.35", "--count", "2", "--lang", "fr"])
    #expect(nearest.stdoutLines.count == 2)
    #expect(nearest.stdout.contains("Belgique") && nearest.stdout.contains(" cap "))
    let resolve = try CLI.run(["resolve", "50.85", "4.35"], environment: Self.french)
    #expect(resolve.stdout.hasPrefix("be  Belgique  (à l'intérieur, marqueur à "))
    // A country outside the 54 in French too, French spacing before ';', a decimal comma (issue 47 item 9).
    let algiers = try CLI.run(
      ["resolve", "36.7538", "3.0588", "--news-countries", "newsapi"], environment: Self.french)
    #expect(algiers.stdout == "pt  Portugal  (le plus proche ; dans Algérie, marqueur à 1013,0 km)\n")
    #expect(nearest.stdout.contains(",") && !nearest.stdout.contains("."), "\(nearest.stdout)")
    let countries = try CLI.run(["countries", "belgique"], environment: Self.french)
    #expect(
      countries.stdoutLines.first?.split(separator: " ")
        == ["CODE", "NOM", "ANGLAIS", "NOM", "LATITUDE", "LONGITUDE", "LANGUE"])
    #expect(
      countries.stdoutLines.last?.split(separator: " ") == [
        "be", "Belgium", "Belgique", "50,6182", "4,6750", "nl",
      ])
    let plan = try CLI.run(
      ["headlines", "--countries", "fr,de", "--provider", "gdelt", "--dry-run", "--lang", "fr"])
    #expect(plan.stdout.hasPrefix("Plan pour 2 résultats, 10 articles chacun :"), "\(plan.stdout)")
    #expect(plan.stdout.contains("\nEnvoie 2 requêtes (davantage seulement si"), "\(plan.stdout)")
    #expect(
      plan.stdout.contains("Prend environ 5 secondes, GDELT étant interrogé une fois toutes les 5 secondes."))
  }

  /// No command prints an English sentence of its own: every sentence in the CLI's sources comes from the
  /// catalogue. A literal of three words or more is flagged, but for the readiness line scripts wait for.
  @Test func commandsSayNothingOutsideTheCatalogue() throws {
    let found = try Self.englishLiterals(under: "Sources/NewsAtlasCLI").filter {
      !$0.contains("\"newsatlas: serving on")
    }
    #expect(found.isEmpty, "English outside the catalogue:\n\(found.joined(separator: "\n"))")
  }

  /// The string literals of three words or more (and such lines of multi-line literals) in the Swift sources at
  /// `path` (a folder or one file, from the package's root), as `file:line: text`; comments are skipped.
  static func englishLiterals(under path: String) throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    let target = root.appendingPathComponent(path).standardized
    let files =
      target.pathExtension == "swift"
      ? [target]
      : try FileManager.default.contentsOfDirectory(atPath: target.path).filter { $0.hasSuffix(".swift") }
        .map { target.appendingPathComponent($0) }
    #expect(!files.isEmpty, "\(path)")
    let literal = try Regex(#""((?:[^"\\]|\\.)*)""#)
    let sentence = try Regex(#"[A-Za-z]{2,} [a-z]{2,} [a-z]{2,}"#)
    var found: [String] = []
    for file in files {
      let text = try String(contentsOf: file, encoding: .utf8)
      var inBlock = false
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let trimmed = line.drop { $0 == " " }
        let opensOrCloses = line.contains("\"\"\"")
        if opensOrCloses { inBlock.toggle() }
        if inBlock && !opensOrCloses && trimmed.contains(sentence) {
          found.append("\(file.lastPathComponent):\(number + 1): \(trimmed)")
        }
        if trimmed.hasPrefix("//") || inBlock || trimmed.contains("precondition") { continue }
        let code = line.split(separator: " //", maxSplits: 1).first ?? line
        for match in code.matches(of: literal) {
          let text = String(code[match.range])
          if text.contains(sentence) { found.append("\(file.lastPathComponent):\(number + 1): \(text)") }
        }
      }
    }
    return found
  }

  /// swift-argument-parser's own words in French: each kind of parse error it writes, as a command line makes
  /// it, and its help's headings and lines; none of its English is left. English stays the default.
  @Test(arguments: [
    (["nearest", "--count"], "Il manque une valeur pour '--count <n>'."),
    (["config"], "Il manque l'argument attendu '<action>'."),
    (["tiles"], "Il manque l'argument attendu '--out <file>'."),
    (
      ["frob"],
      "'frob' n'est pas une commande ; les commandes sont nearest, resolve, clusters, serve, tiles, countries, "
        + "headlines, search, sources, feeds, config, quota."
    ),
    (["countries", "a", "b", "c"], "2 arguments inattendus : 'b', 'c'."),
    (["serve", "--no-news=1"], "L'option '--no-news' ne prend pas de valeur, mais '1' a été donné."),
    (
      ["nearest", "1", "2", "--format", "xml"],
      "La valeur 'xml' n'est pas valide pour '--format <format>'. Donnez l'une des valeurs 'text', 'json', "
        + "'geojson', 'csv' ou 'jsonl'."
    ),
    (["headlines", "--country", "fr", "--frob"], "Option inconnue '--frob' ; vouliez-vous dire '--probe' ?"),
    (["countries", "--qqqqqqqqqq"], "Option inconnue '--qqqqqqqqqq'."),
    // A value holding the sentence's own words is cut where ArgumentParser's words begin, not inside it.
    (
      ["nearest", "1", "2", "--format", "x' is invalid for 'y"],
      "La valeur 'x' is invalid for 'y' n'est pas valide pour '--format <format>'. Donnez l'une des valeurs "
        + "'text', 'json', 'geojson', 'csv' ou 'jsonl'."
    ),
  ])
  func argumentParsersErrorsAreFrench(arguments: [String], sentence: String) throws {
    let french = try CLI.run(arguments, environment: Self.french)
    #expect(french.status == 64)
    #expect(french.stderr == "newsatlas: \(sentence) Voir 'newsatlas help'.\n", "\(arguments)")
    let english = try CLI.run(arguments)
    #expect(english.status == 64 && english.stderr.hasSuffix(" See 'newsatlas help'.\n"))
    #expect(!english.stderr.contains(String(sentence.prefix(12))), "\(english.stderr)")
  }

  @Test func argumentParsersHelpIsFrench() throws {
    var helps = [try CLI.run(["--help"], environment: Self.french).stdout]
    for command in Self.commands {
      helps.append(try CLI.run([command, "--help"], environment: Self.french).stdout)
    }
    helps.append(try CLI.run(["help", "nearest"], environment: Self.french).stdout)
    let all = helps.joined(separator: "\n")
    for english in [
      "OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "SUBCOMMANDS:", "(default:", "Show help",
    ] {
      #expect(!all.contains(english), "\(english) in the French help")
    }
    for french in ["APERÇU : ", "UTILISATION : newsatlas", "ARGUMENTS :", "OPTIONS :", "SOUS-COMMANDES :"] {
      #expect(all.contains(french), "\(french) is not in the French help")
    }
    #expect(all.contains("-h, --help              Afficher l'aide."))
    #expect(all.contains("(par défaut : 1)"))
    #expect(all.contains("Voir 'newsatlas help <sous-commande>' pour l'aide détaillée."))
    let english = try CLI.run(["nearest", "--help"]).stdout
    #expect(english.contains("USAGE: newsatlas nearest") && english.contains("Show help information."))
  }

  /// French help keeps its words and punctuation where ArgumentParser wraps (at spaces only): no line begins with
  /// the ';' or ':' French spaces off (`; 75 réessayer`, `: tous)`), which belongs to the line before, and a
  /// phrase broken across two lines is French in both halves (`(valeurs : text, json ;` / `par défaut : text)`;
  /// it read `json;` / `default: text)`). And serve's --threads says its default once, in both languages (issue
  /// 31 item 7: it added this machine's core count, `(default: 2)`). The keys of config's help are listed with ` ; `
  /// and an option group's title ends with ` :`.
  @Test func frenchHelpWrapsAsFrench() throws {
    for command in [""] + Self.commands {
      let help = try CLI.run(command.isEmpty ? ["--help"] : [command, "--help"], environment: Self.french)
        .stdout
      for line in help.split(separator: "\n") {
        let text = line.drop { $0 == " " }
        #expect(
          !text.hasPrefix("; ") && !text.hasPrefix(": ") && text != ";" && text != ":", "\(command): \(line)")
      }
      #expect(!help.contains("default"), "\(command): \(help)")
    }
    // The keys' list in config's help, an option group's title.
    let config = Self.collapsed(try CLI.run(["config", "--help"], environment: Self.french).stdout)
    #expect(config.contains("pour le fournisseur newsapi)) ; language (la langue"), "\(config)")
    #expect(!config.contains(");"), "\(config)")
    let headlines = try CLI.run(["headlines", "--help"], environment: Self.french).stdout
    #expect(
      headlines.contains(
        "\nREGROUPEMENT (AVEC --CLUSTER : OPTIONS DE LA CARTE D'OÙ VIENT SON IDENTIFIANT) :\n"))
    let countries = try CLI.run(["countries", "--help"], environment: Self.french).stdout
    #expect(countries.contains("(valeurs : text,\n"), "\(countries)")
    #expect(countries.contains("\n                          json ; par défaut : text)\n"), "\(countries)")
    for (environment, word) in [([:], "default"), (Self.french, "par défaut")] {
      let serve = Self.collapsed(try CLI.run(["serve", "--help"], environment: environment).stdout)
      let threads =
        serve.components(separatedBy: "--threads <n>").dropFirst().first?
        .components(separatedBy: "--tile-cache-mb").first ?? ""
      #expect(threads.components(separatedBy: word).count == 2, "\(threads)")
    }
  }

  /// Every line of every command's help fits in the terminal's columns (80 unless COLUMNS says otherwise), in
  /// both languages: ArgumentParser wraps its English to them, and its words said in French are longer
  /// (`(par défaut : 20)`), so French lines ran 2 to 4 columns past 80, and the clustering group's French title
  /// (which ArgumentParser does not wrap) was 84. A French line wrapped again loses no word and keeps its
  /// paragraph's indentation.
  @Test func everyHelpLineFitsTheColumns() throws {
    for columns in [80, 100] {
      for language in ["en", "fr"] {
        for command in [""] + Self.commands {
          let arguments = (command.isEmpty ? [] : [command]) + ["--help", "--lang", language]
          let help = try CLI.run(arguments, environment: ["COLUMNS": String(columns)])
          #expect(help.status == 0, "\(arguments)")
          for line in help.stdout.split(separator: "\n") where line.count > columns {
            Issue.record("\(arguments) at \(columns) columns: \(line.count): \(line)")
          }
        }
      }
    }
    // The same words as ArgumentParser's own wrapping at a width that needs no second one.
    for command in [""] + Self.commands {
      let arguments = (command.isEmpty ? [] : [command]) + ["--help", "--lang", "fr"]
      let narrow = try CLI.run(arguments, environment: ["COLUMNS": "80"]).stdout
      let wide = try CLI.run(arguments, environment: ["COLUMNS": "1000"]).stdout
      #expect(Self.collapsed(narrow) == Self.collapsed(wide), "\(command)")
    }
    // An option's help goes on at its column, a usage two columns right of its forms, each form at the column
    // after the heading said in French.
    let countries = try CLI.run(["countries", "--help", "--lang", "fr"], environment: ["COLUMNS": "80"])
      .stdout
    #expect(
      countries.contains("(valeurs : text,\n                          json ; par défaut : text)\n"),
      "\(countries)")
    let nearest = try CLI.run(["nearest", "--help", "--lang", "fr"], environment: ["COLUMNS": "80"]).stdout
    #expect(nearest.contains("\n              newsatlas nearest --input <file>"), "\(nearest)")
    #expect(nearest.contains("\n                [--format <format>]"), "\(nearest)")
  }

  /// A list of choices ends with "ou" in French: the providers' list was "auto, newsapi, gdelt or feeds".
  @Test func theProvidersListIsFrench() throws {
    let result = try CLI.run(["headlines", "--country", "fr", "--provider", "rss"], environment: Self.french)
    #expect(
      result.stderr == "newsatlas: 'rss' n'est pas un fournisseur ; utilisez auto, newsapi, gdelt ou feeds.\n"
    )
    let help = Self.collapsed(try CLI.run(["config", "--help"], environment: Self.french).stdout)
    #expect(help.contains("auto, newsapi, gdelt ou feeds") && !help.contains("gdelt or feeds"))
  }
}
