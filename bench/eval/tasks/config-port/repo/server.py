import configparser

DEFAULT_PORT = 8080


def listen_address(path="settings.ini"):
    config = configparser.ConfigParser()
    config.read(path)
    server = config["server"]
    return server.get("host", "0.0.0.0"), int(server.get("port", DEFAULT_PORT))
