package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.testkit.KafkaBroker;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a keystore configured the gateway answers HTTPS only, and two instances forward to each
 * other over HTTPS (the caller's token never crosses the network in clear). The keystore's password
 * comes from the environment, as in production: the module's build sets
 * {@code CRONOQ_TEST_TLS_PASSWORD} for the test JVM.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GatewayTlsIntegrationTest {

    private static final String PASSWORD_VAR = "CRONOQ_TEST_TLS_PASSWORD";

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    /** A PKCS12 keystore with a self-signed certificate for localhost and 127.0.0.1, made by the JDK's keytool. */
    private Path keystore() throws Exception {
        Path store = dir.resolve("gateway.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "cronoq", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", System.getenv(PASSWORD_VAR),
                "-keypass", System.getenv(PASSWORD_VAR)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        return store;
    }

    private static SSLContext trusting(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, System.getenv(PASSWORD_VAR).toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    @Test
    void twoInstancesServeAndForwardOverHttpsOnly() throws Exception {
        assertThat(System.getenv(PASSWORD_VAR)).as("set by the module's build").isNotBlank();
        Path store = keystore();
        Map<String, String> tls = Map.of(
                SchedulerConfig.HTTP_TLS_KEYSTORE.name(), store.toString(),
                SchedulerConfig.HTTP_TLS_KEYSTORE_PASSWORD_ENV.name(), PASSWORD_VAR);
        String prefix = broker.uniqueName("tls") + ".";
        String applicationId = broker.uniqueName("scheduler");
        SSLContext trust = trusting(store);
        try (SchedulerNode a = SchedulerNode.start(broker, prefix, applicationId, 2, Credentials.none(), tls);
             SchedulerNode b = SchedulerNode.start(broker, prefix, applicationId, 2, Credentials.none(), tls)) {
            assertThat(a.gateway.url()).startsWith("https://");
            Api httpsA = Api.overTls(a.gateway.url(), trust);
            Api httpsB = Api.overTls(b.gateway.url(), trust);

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (SchedulerNode n : List.of(a, b)) {
                    assertThat(n.app.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
                }
                // Ready means every partition's owner answers, over HTTPS when it is the peer.
                assertThat(httpsA.get("/readyz").status()).isEqualTo(200);
                assertThat(httpsB.get("/readyz").status()).isEqualTo(200);
            });
            for (int i = 0; i < 6; i++) {
                assertThat(httpsA.post("/v1/tasks", "{\"pool\":\"p%d\",\"id\":\"t\"}".formatted(i)).status())
                        .isEqualTo(202);
            }
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                Api.Reply snapshot = httpsB.get("/v1/snapshot");
                assertThat(snapshot.status()).as(snapshot.toString()).isEqualTo(200);
                assertThat(snapshot.json().path("pools")).as("every pool, some forwarded over HTTPS").hasSize(6);
            });

            // Plain HTTP on the same port is not served.
            String plain = a.gateway.url().replace("https://", "http://");
            Api.Reply refused = null;
            try {
                refused = new Api(plain).get("/healthz");
            } catch (UncheckedIOException e) {
                // the connection was closed: not served, as wanted
            }
            assertThat(refused == null || refused.status() != 200).as("plain HTTP answered " + refused).isTrue();
        }
    }

    @Test
    void aMissingKeystoreOrPasswordIsRefusedAtStartNamingTheSetting() {
        SchedulerConfig missingFile = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), "localhost:9092",
                SchedulerConfig.HTTP_TLS_KEYSTORE.name(), dir.resolve("nope.p12").toString()));
        assertThatThrownBy(() -> GatewayTls.of(missingFile, System::getenv))
                .hasMessageContaining("cronoq.http.tls.keystore").hasMessageContaining("not a readable file");

        SchedulerConfig noPassword = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), "localhost:9092",
                SchedulerConfig.HTTP_TLS_KEYSTORE.name(), dir.toString(),
                SchedulerConfig.HTTP_TLS_KEYSTORE_PASSWORD_ENV.name(), "CRONOQ_NO_SUCH_VARIABLE"));
        assertThatThrownBy(() -> GatewayTls.of(noPassword, name -> null))
                .hasMessageContaining("CRONOQ_NO_SUCH_VARIABLE").hasMessageContaining("unset or empty");
    }
}
