"""Secured listeners for the local broker: TLS material made with the openssl command, and
the broker settings of three listeners as production clusters run them.

    SASL_SSL  SASL over TLS with SCRAM-SHA-512 (credentials stored in the cluster's
              metadata at format time) and PLAIN (the Confluent Cloud style)
    MTLS      TLS with client authentication: a client certificate signed by the test CA
    OAUTH     SASL over TLS with OAUTHBEARER, checked by the broker's unsecured JWT
              validator (a token with ``"alg": "none"`` whose ``sub`` is the principal)

The broker's certificate names only the address 127.0.0.1 (no host name), so a client that
connects to ``localhost`` sees a host name mismatch: the tests use it. Nothing here is a
secret worth keeping: every key is made for one broker directory and thrown away with it.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from pathlib import Path

__all__ = [
    "LISTENERS",
    "USER",
    "credentials",
    "make_ca",
    "make_certificate",
    "make_material",
    "scram_arguments",
    "server_properties",
]

USER = "citewatch"
"""The SCRAM and PLAIN user of the SASL_SSL listener."""

LISTENERS = {"SASL_SSL": "SASL_SSL", "MTLS": "SSL", "OAUTH": "SASL_SSL"}
"""Secured listener name -> its security protocol."""

_DAYS = "2"


def _openssl(*args: str) -> None:
    if shutil.which("openssl") is None:
        raise RuntimeError("making TLS keys needs the openssl command; apt-get install openssl")
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_ca(directory: Path, name: str) -> Path:
    """A self-signed CA: ``name.pem`` (certificate) and ``name.key`` in ``directory``;
    returns the certificate's path."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", _DAYS, "-subj", f"/CN={name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    return cert


def make_certificate(
    directory: Path,
    name: str,
    *,
    ca: Path,
    address: str | None = None,
    password: str | None = None,
) -> tuple[Path, Path]:
    """A certificate ``name.pem`` signed by the CA at ``ca`` (its key beside it, as
    :func:`make_ca` writes it) and its PKCS#8 key ``name.key``, encrypted with ``password``
    when one is given. ``address``: the one IP address the certificate names (a server's);
    without it, a client certificate. Returns (certificate, key)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key, csr = directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr"
    extensions = directory / f"{name}.ext"
    usage = "serverAuth" if address else "clientAuth"
    lines = [f"extendedKeyUsage={usage}", "keyUsage=critical,digitalSignature"]
    if address:
        lines.append(f"subjectAltName=IP:{address}")
    extensions.write_text("\n".join(lines) + "\n")
    _openssl(
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={address or name}",
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca.with_suffix(".key")),
        "-set_serial", str(secrets.randbits(63)), "-days", _DAYS, "-out", str(cert),
        "-extfile", str(extensions),
    )  # fmt: skip
    if password is not None:
        encrypted = directory / f"{name}.enc"
        _openssl(
            "pkcs8", "-topk8", "-in", str(key), "-out", str(encrypted), "-passout",
            f"pass:{password}",
        )  # fmt: skip
        encrypted.replace(key)
    csr.unlink()
    extensions.unlink()
    return cert, key


def make_material(directory: Path) -> dict[str, str]:
    """The CA, the broker's keystore (key and certificate in one PEM file), a client
    certificate and key, and the SASL password, in ``directory``; returns where each is
    (written to ``credentials.json`` too)."""
    ca = make_ca(directory, "ca")
    broker_cert, broker_key = make_certificate(directory, "broker", ca=ca, address="127.0.0.1")
    keystore = directory / "broker-keystore.pem"
    keystore.write_text(broker_key.read_text() + broker_cert.read_text())
    client_cert, client_key = make_certificate(directory, "client", ca=ca)
    found = {
        "ca": str(ca),
        "keystore": str(keystore),
        "client_cert": str(client_cert),
        "client_key": str(client_key),
        "user": USER,
        "password": secrets.token_urlsafe(18),
    }
    (directory / "credentials.json").write_text(json.dumps(found, indent=2) + "\n")
    return found


def credentials(directory: Path) -> dict[str, str]:
    """What :func:`make_material` wrote in ``directory``."""
    found: dict[str, str] = json.loads((directory / "credentials.json").read_text())
    return found


def scram_arguments(material: dict[str, str]) -> list[str]:
    """The storage tool's arguments that store the SCRAM-SHA-512 user at format time."""
    return ["--add-scram", f"SCRAM-SHA-512=[name={USER},password={material['password']}]"]


def server_properties(material: dict[str, str]) -> list[str]:
    """The broker settings of the secured listeners (their TLS files, SASL mechanisms and
    users); the listeners themselves are declared by the caller."""
    password = material["password"]
    return [
        "ssl.keystore.type=PEM",
        f"ssl.keystore.location={material['keystore']}",
        "ssl.truststore.type=PEM",
        f"ssl.truststore.location={material['ca']}",
        "listener.name.mtls.ssl.client.auth=required",
        "listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config="
        "org.apache.kafka.common.security.scram.ScramLoginModule required;",
        "listener.name.sasl_ssl.plain.sasl.jaas.config="
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'user_{USER}="{password}";',
        "listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER",
        "listener.name.oauth.oauthbearer.sasl.jaas.config="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        'unsecuredLoginStringClaim_sub="broker";',
    ]
