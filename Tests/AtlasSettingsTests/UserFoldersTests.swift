import Testing

@testable import AtlasSettings

/// The XDG Base Directory rules: an absolute `XDG_*_HOME` is used, an unset, empty or relative one is not.
@Suite struct UserFoldersTests {
  @Test func absoluteHomesAreUsed() {
    let folders = UserFolders(environment: [
      "HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k/", "XDG_DATA_HOME": "/d//",
    ])
    #expect(folders.settingsFile == "/c/newsatlas/config.toml")
    #expect(folders.cacheFile == "/k/newsatlas/cache.sqlite")
    #expect(folders.data == "/d/newsatlas")
  }

  @Test(arguments: [nil, "", "relative/xdg", "./x", "~/x"])
  func anUnsetEmptyOrRelativeHomeFallsBackToTheDefault(value: String?) {
    var environment = ["HOME": "/home/u/"]
    if let value {
      for name in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] { environment[name] = value }
    }
    let folders = UserFolders(environment: environment)
    #expect(folders.config == "/home/u/.config/newsatlas")
    #expect(folders.cacheFile == "/home/u/.cache/newsatlas/cache.sqlite")
    #expect(folders.data == "/home/u/.local/share/newsatlas")
  }

  @Test func withoutAnAbsoluteHomeThePasswordDatabaseSays() throws {
    let home = try #require(UserFolders.passwordDatabaseHome())
    for environment in [[:], ["HOME": ""], ["HOME": "relative"]] {
      #expect(UserFolders(environment: environment).configHome == UserFolders.trimmed(home) + "/.config")
    }
  }
}
