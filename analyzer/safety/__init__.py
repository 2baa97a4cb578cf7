"""What keeps secrets and hostile text in their place: the bottom layer, importing only `errors`
and `atomic`.

- `scrub`: API keys removed from any text, in any escaped or encoded form.
- `url_secrets`: the secret-shaped parts of a URL (user info, query, key-shaped path) found and masked.
- `keys`: API keys read, checked and fingerprinted (the only module that sees a key's value).
- `terminal_text`: log text for a terminal, control characters shown as escapes, never obeyed.
- `bounded_read`: the one guarded way to read a file by path (regular files only, a size cap).
- `settings_file`: a small settings file (route profile, scenario) read and parsed safely.
- `bounded_zip`: an archive's stated sizes checked before inflating (total, ratio, entries).
- `trusted_hosts`: the hosts a user confirmed may receive a key variable a log's route names.
"""
