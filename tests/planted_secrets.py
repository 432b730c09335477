"""Planted secrets of every kind the tool must redact, and ordinary provenance values it must
keep, for tests/test_secrets.py.

:data:`PLANTED` holds, per kind, the secret (every one made up, each holding a fragment found
nowhere else) and a text carrying it as an environment value or a command line would, with
the parts of that text that must stay readable. :data:`PLANTED_ARGV` holds command lines as
word lists, whose secrets only the shape of the command line shows. :data:`ORDINARY` holds
values that look a little like secrets and are none.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Planted:
    kind: str
    secret: str
    text: str
    kept: tuple[str, ...] = ()


def _b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


JWT = (f"{_b64url({'alg': 'HS256', 'typ': 'JWT'})}.{_b64url({'sub': 'planted-jwt-16'})}"
       ".PlantedJwtSignature16abc")
AZURE_KEY = ("PlantedAzureKey08" + "A" * 69 + "==")  # 88 characters of base64
PEM_BODY = "MIIEpAIBAAKCAQEAplantedPemBody10xyz"
LONG_URL_PASSWORD = "Lp03@/" + "Zq" * 150 + "-end03"  # 310 characters, reserved ones in it
LONG_PLAIN_PASSWORD = "Lp04" + "Wv" * 140 + "end04"

PLANTED = [
    Planted("java keystore password", "KsPw0001xq",
            "-Xmx2g -Djavax.net.ssl.keyStorePassword=KsPw0001xq -Dfile.encoding=UTF-8",
            ("-Djavax.net.ssl.keyStorePassword=", "-Xmx2g", "-Dfile.encoding=UTF-8")),
    Planted("java truststore password", "TsPw0002xq",
            "-Djavax.net.ssl.trustStorePassword=TsPw0002xq", ("trustStorePassword=",)),
    Planted("URL password over 256 characters with @ and /", LONG_URL_PASSWORD,
            f"https://svc:{LONG_URL_PASSWORD}@repo.example.org/simple",
            ("https://svc:", "@repo.example.org/simple")),
    Planted("URL password over 256 characters", LONG_PLAIN_PASSWORD,
            f"http://bob:{LONG_PLAIN_PASSWORD}@proxy.example.org:3128",
            ("http://bob:", "@proxy.example.org:3128")),
    Planted("JSON password", "Js0nPw05xq", '{"user": "bob", "password": "Js0nPw05xq", "port": 5432}',
            ('"user": "bob"', '"port": 5432')),
    Planted("YAML password", "YmlPw06xq", "db:\n  host: pg1\n  password: YmlPw06xq\n  port: 5432\n",
            ("host: pg1", "port: 5432")),
    Planted("--password X", "PwOpt07xq", "--user bob --password PwOpt07xq --verbose",
            ("--user bob --password", "--verbose")),
    Planted("Azure storage AccountKey", AZURE_KEY,
            f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={AZURE_KEY};"
            "EndpointSuffix=core.windows.net", ("AccountName=acct", "EndpointSuffix=")),
    Planted("Azure SAS sig", "SaSsIg09xq%2Babc%3D",
            "https://acct.blob.core.windows.net/c/b.dat?sv=2022-11-02&se=2030-01-01&sr=b&sp=r"
            "&sig=SaSsIg09xq%2Babc%3D", ("https://acct.blob.core.windows.net/c/b.dat?sv=",)),
    Planted("PEM RSA private key", PEM_BODY,
            f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n"),
    Planted("PEM encrypted private key", "MIIFHzBJplantedEncPem11",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJplantedEncPem11\n"
            "-----END ENCRYPTED PRIVATE KEY-----"),
    Planted("OpenSSH private key", "b3BlbnNzaC1rZXkplantedSsh12",
            "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXkplantedSsh12\\n"
            "-----END OPENSSH PRIVATE KEY-----"),
    Planted("GitHub token", "ghp_PlantedGithubToken13xxxxxxxxxxxxxxxx",
            "GH=ghp_PlantedGithubToken13xxxxxxxxxxxxxxxx gh auth status", ("gh auth status",)),
    Planted("GitHub fine-grained token",
            "github_pat_11PLANTED14_" + "x" * 60,
            "token github_pat_11PLANTED14_" + "x" * 60),
    Planted("GitLab token", "glpat-PlantedGitLab15xxxx",
            "git clone https://oauth2:glpat-PlantedGitLab15xxxx@gitlab.example.org/g/p.git",
            ("git clone https://oauth2:", "@gitlab.example.org/g/p.git")),
    Planted("JWT", JWT, f"id_jwt {JWT} end", ("id_jwt", "end")),
    Planted("Slack webhook", "PlantedWebhook17xyz",
            "https://hooks.slack.com/services/T0PLANTED/B0PLANTED/PlantedWebhook17xyz"),
    Planted("Slack bot token", "xoxb-1234567890-1234567890-plantedslack18",
            "notify xoxb-1234567890-1234567890-plantedslack18", ("notify",)),
    Planted("Sentry DSN", "0123456789abcdef0123456789abc019",
            "https://0123456789abcdef0123456789abc019@o450000.ingest.sentry.io/5500019",
            ("@o450000.ingest.sentry.io/5500019",)),
    Planted("mysql -pSECRET", "MyPw20xq", "mysqldump -uroot -pMyPw20xq --all-databases",
            ("mysqldump -uroot -p", "--all-databases")),
    Planted("Bearer header", "BrTk21xqPlanted",
            "curl -H 'Authorization: Bearer BrTk21xqPlanted' https://api.example.org/v1",
            ("https://api.example.org/v1", "Authorization: Bearer")),
    Planted("AWS access key id", "AKIAZ7Q4PLANTED00022",
            "aws_access_key_id=AKIAZ7Q4PLANTED00022", ("aws_access_key_id=",)),
    Planted("AWS secret access key", "wJalrXUtnFEMIK7MDENGbPxRfiCYPLANTED023",
            "aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYPLANTED023",
            ("aws_secret_access_key",)),
    Planted("Stripe key", "sk_live_PlantedStripe24xxxxxxxxx", "sk_live_PlantedStripe24xxxxxxxxx"),
    Planted("SendGrid key", "SG.PlantedSendGrid25xxxxx.PlantedSendGrid25yyyyyyyyyyyyyyyyyyyyyyyyyyyy",
            "SG.PlantedSendGrid25xxxxx.PlantedSendGrid25yyyyyyyyyyyyyyyyyyyyyyyyyyyy"),
    Planted("npm token", "npm_PlantedNpm26xxxxxxxxxxxxxxxxxxxxxxx",
            "//registry.npmjs.org/:_authToken=npm_PlantedNpm26xxxxxxxxxxxxxxxxxxxxxxx",
            ("//registry.npmjs.org/:_authToken=",)),
    Planted("PyPI token", "pypi-AgEIcHlwaS5vcmcPlantedPyPI27" + "x" * 70,
            "pypi-AgEIcHlwaS5vcmcPlantedPyPI27" + "x" * 70),
    Planted("OpenAI key", "sk-proj-Planted0000000000028T3BlbkFJPlanted0000000000028",
            "sk-proj-Planted0000000000028T3BlbkFJPlanted0000000000028"),
    Planted("Mailchimp key", "plantedmailchimp0000000000000029-us12",
            "plantedmailchimp0000000000000029-us12"),
    Planted("database URL password", "PgPw30xq",
            "postgresql://alice:PgPw30xq@db.example.org:5432/prov",
            ("postgresql://alice:", "@db.example.org:5432/prov")),
    Planted("user:password@host", "BarePw31xq", "bob:BarePw31xq@db.example.org/prov",
            ("@db.example.org/prov",)),
    Planted("access_token in a query", "AcTk32xq",
            "https://x.example.org/cb?user=1&access_token=AcTk32xq&page=2",
            ("user=1", "&page=2")),
    Planted("--token=X", "TkOpt33xq", "--token=TkOpt33xq --project demo", ("--project demo",)),
    Planted("X-Api-Key header", "ApiK36xqPlanted", "-H X-Api-Key: ApiK36xqPlanted", ("-H",)),
    Planted("Cookie header", "CkSe37xqPlanted", "Cookie: session=CkSe37xqPlanted; theme=dark",
            ("Cookie:",)),
    Planted("AWS presigned URL", "PlantedAmzSig38",
            "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            "&X-Amz-Signature=PlantedAmzSig38&X-Amz-Expires=300", ("X-Amz-Expires=300",)),
    Planted("AWS session token in a URL", "PlantedAmzTok39",
            "https://b.s3.amazonaws.com/k?X-Amz-Security-Token=PlantedAmzTok39"),
    Planted("Google signed URL", "PlantedGoogSig40",
            "https://storage.googleapis.com/b/o?X-Goog-Signature=PlantedGoogSig40"),
    Planted("--api-key X", "ApiKeyOpt41xq", "fetch --api-key ApiKeyOpt41xq --out data.csv",
            ("--out data.csv",)),
    Planted("Square token", "sq0csp-" + "PlantedSquare42" + "x" * 28,
            "sq0csp-" + "PlantedSquare42" + "x" * 28),
    Planted("client_secret", "ClSec43xqPlanted", "client_id=app1&client_secret=ClSec43xqPlanted",
            ("client_id=app1",)),
    Planted("PGPASSWORD in a command", "PgEnv44xq", "env PGPASSWORD=PgEnv44xq psql -h db",
            ("psql -h db",)),
    Planted("--passphrase X", "PassPhr45xq", "gpg --batch --passphrase PassPhr45xq -d f.gpg",
            ("-d f.gpg",)),
    Planted("sshpass -p", "SsPw46xq", "sshpass -p SsPw46xq ssh login1", ("ssh login1",)),
    Planted("curl -u user:password", "CuPw47xq", "curl -u bob:CuPw47xq https://x.example.org",
            ("-u bob:",)),
    Planted("spring datasource password", "SpPw48xq",
            "-Dspring.datasource.password=SpPw48xq -Dspring.datasource.username=app",
            ("-Dspring.datasource.username=app",)),
    Planted("Python password argument", "PyPw49xq",
            "python -c \"db.login(user='bob', password='PyPw49xq')\"", ("user='bob'",)),
    Planted("wget --http-password", "WgPw50xq", "wget --http-password=WgPw50xq https://x.org/f",
            ("https://x.org/f",)),
]

#: Command lines as word lists (XALT ``cmdlineA``): secret, words, words kept verbatim.
PLANTED_ARGV = [
    ("MyPwCmd60", ["/usr/bin/mysql", "-uroot", "-pMyPwCmd60", "prod"], ["-uroot", "prod"]),
    ("PwOptCmd61", ["tool", "--password", "PwOptCmd61", "--verbose"], ["--password"]),
    ("SsPwCmd62", ["sshpass", "-p", "SsPwCmd62", "ssh", "login1"], ["ssh", "login1"]),
    ("CuPwCmd63", ["curl", "-u", "bob:CuPwCmd63", "https://x.example.org"], ["-u"]),
    ("SmbPwCmd64", ["smbclient", "//srv/share", "-U", "bob%SmbPwCmd64"], ["//srv/share"]),
    ("TkCmd65xq", ["srun", "-n", "4", "transfer", "--token", "TkCmd65xq"], ["srun", "-n", "4"]),
    ("KsPwCmd66", ["java", "-Djavax.net.ssl.keyStorePassword=KsPwCmd66", "-jar", "a.jar"],
     ["-jar", "a.jar"]),
    ("BrTkCmd67xq", ["curl", "-H", "Authorization: Bearer BrTkCmd67xq", "https://x.org"],
     ["https://x.org"]),
]

#: Values of provenance that must be kept exactly as they are.
ORDINARY = [
    "/home1/00515/mclay/t/hello", "/usr/lib64/libm.so.6",
    "3eae43c087b90e0672ccdbe7f0d44058491274bf", "acc1af54-6d3c-4ada-8cac-4c8f6aad8bb5",
    "b6e67891-9362-4ccd-8476-a08b9bd9898b", "intel/17.0.4:impi/17.0.3:git/2.9.0:xalt/1.7",
    "c455-043.stampede2.tacc.utexas.edu", "5.26.30", "Python 3.11.7", "x86_64",
    "Intel(R) Xeon Phi(TM) CPU 7250 @ 1.40GHz", "https://pypi.org/simple",
    "bob@example.org", "git@github.com:org/repo.git", "scp bob@login1:/data/x .",
    "http://localhost:8080/path?user=bob@example.org", "ftp://mirror.example.org:21/pub",
    "-Djavax.net.ssl.keyStore=/etc/pki/keystore.jks", "--password-file /etc/pw",
    "docker login --password-stdin registry.example.org", "--no-password --verbose",
    "--private-key ~/.ssh/id_ed25519", "SESSION_MANAGER=local/host:@/tmp/.ICE-unix/1234",
    "unix:path=/run/user/1000/bus", "FILE:/tmp/krb5cc_1000", "Asia/Tokyo",
    "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33", "--enable-shared --prefix=/opt/x --with-auth",
    "tokenizer.json", "TOKENIZERS_PARALLELISM=false", "/etc/passwd", "secret_santa.py",
    "max_tokens=100", "/opt/spack/linux-x86_64/gcc-9.3.0/openmpi-4.0.5-abcdefghijklmnopqrst",
    "-a diamond -T 60 -i f.a -o f.b1 -o f.b2", "[hello]", "pegasus-plan --dir work --sites condor",
    "printf '\\033]0;%s@%s:%s\\007' \"$USER\" \"${HOSTNAME%%.*}\" \"${PWD/#$HOME/~}\"",
    "/ccs/home/khuck/src/XGC-Devel/xgc-build/bin/xgc-es-cpp-gpu -no_signal_handler",
    "mysql -h db.example.org -u bob prod", "curl -u bob https://x.org",
]
