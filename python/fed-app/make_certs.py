"""Makes the certificates and keys of a test federation: a test CA, the SuperLink's TLS certificate
signed by it (for localhost, 127.0.0.1 and every --host), and one authentication key pair per
SuperNode (EC P-384, OpenSSH format, as `flwr supernode register` expects).

    python make_certs.py OUT_DIR --nodes 3 [--host 10.0.0.5 --host superlink.bank.example]

Writes OUT_DIR/{ca.crt, ca.key, server.pem, server.key, node-<i>, node-<i>.pub}. For testing:
a production federation uses certificates of its own PKI and keys each organisation makes.
"""

import argparse
import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _write_private(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o600)


def _pem_key(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _san(host: str):
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def make(out: Path, nodes: int, hosts: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dpgraph federation test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True,
                content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(out / "ca.key", _pem_key(ca_key))
    (out / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    names = ["localhost", "127.0.0.1", "::1", *hosts]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "superlink")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([_san(h) for h in dict.fromkeys(names)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(out / "server.key", _pem_key(key))
    (out / "server.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    for i in range(nodes):
        k = ec.generate_private_key(ec.SECP384R1())
        _write_private(
            out / f"node-{i}",
            k.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
            ),
        )
        pub = k.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        (out / f"node-{i}.pub").write_bytes(pub + f" node-{i}\n".encode())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, help="output folder")
    p.add_argument("--nodes", type=int, default=3, help="SuperNode key pairs to make (default 3)")
    p.add_argument("--host", action="append", default=[], help="another name or IP of the SuperLink")
    a = p.parse_args()
    make(a.out, a.nodes, a.host)
    print(f"wrote the CA, the SuperLink certificate and {a.nodes} SuperNode key pairs to {a.out.resolve()}")


if __name__ == "__main__":
    main()
