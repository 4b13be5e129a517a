package io.cronoq.gateway;

import io.cronoq.scheduler.config.SchedulerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * HTTPS for the gateway and for its calls to the other instances. With a keystore configured
 * ({@code cronoq.http.tls.keystore}, its password in the environment variable that
 * {@code cronoq.http.tls.keystore.password.env} names) the gateway answers HTTPS only, and it calls
 * its peers over HTTPS, trusting the certificates of {@code cronoq.http.tls.truststore} (by default
 * the keystore itself: instances that share one certificate trust each other). A peer's certificate
 * must name the host of its {@code cronoq.application.server}. Read and checked once, at start.
 */
public final class GatewayTls {

    private final Path keystore;
    private final char[] keystorePassword;
    private final SSLContext peers;

    private GatewayTls(Path keystore, char[] keystorePassword, SSLContext peers) {
        this.keystore = keystore;
        this.keystorePassword = keystorePassword;
        this.peers = peers;
    }

    /**
     * The TLS settings of {@code config}, or {@code null} when no keystore is configured (plain HTTP).
     *
     * @param env reads environment variables (the passwords live there, never in the file)
     * @throws IllegalArgumentException naming the setting that is wrong and what to do
     */
    public static GatewayTls of(SchedulerConfig config, Function<String, String> env) {
        String keystore = config.get(SchedulerConfig.HTTP_TLS_KEYSTORE);
        if (keystore.isBlank()) {
            return null;
        }
        Path keystorePath = readable(SchedulerConfig.HTTP_TLS_KEYSTORE.name(), keystore);
        char[] keystorePassword = password(SchedulerConfig.HTTP_TLS_KEYSTORE_PASSWORD_ENV.name(),
                config.get(SchedulerConfig.HTTP_TLS_KEYSTORE_PASSWORD_ENV), env);
        String truststore = config.get(SchedulerConfig.HTTP_TLS_TRUSTSTORE);
        Path trustPath = truststore.isBlank() ? keystorePath
                : readable(SchedulerConfig.HTTP_TLS_TRUSTSTORE.name(), truststore);
        char[] trustPassword = truststore.isBlank() ? keystorePassword
                : password(SchedulerConfig.HTTP_TLS_TRUSTSTORE_PASSWORD_ENV.name(),
                        config.get(SchedulerConfig.HTTP_TLS_TRUSTSTORE_PASSWORD_ENV), env);
        KeyStore keys = load(SchedulerConfig.HTTP_TLS_KEYSTORE.name(), keystorePath, keystorePassword);
        // Without a truststore the instances share one certificate: trust the keystore already read.
        KeyStore trust = truststore.isBlank() ? keys
                : load(SchedulerConfig.HTTP_TLS_TRUSTSTORE.name(), trustPath, trustPassword);
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return new GatewayTls(keystorePath, keystorePassword, context);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the gateway's TLS trust could not be set up from " + trustPath + ": " + e);
        }
    }

    /** The context the gateway calls its peers with, trusting the configured certificates. */
    SSLContext peerContext() {
        return peers;
    }

    /** The HTTPS connector the gateway listens with, on {@code bind} and {@code port}. */
    ServerConnector connector(Server server, HttpConfiguration http, String bind, int port) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(keystore.toString());
        ssl.setKeyStorePassword(new String(keystorePassword));
        HttpConfiguration https = new HttpConfiguration(http);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        // Clients name instances by address as often as by name: the certificate's names are checked by them.
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        ServerConnector connector = new ServerConnector(server, ssl, new HttpConnectionFactory(https));
        connector.setHost(bind);
        connector.setPort(port);
        return connector;
    }

    private static Path readable(String setting, String path) {
        Path file = Path.of(path);
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(setting + " '" + path + "' is not a readable file: point it at a "
                    + "PKCS12 (or JKS) keystore, e.g. one made with keytool -genkeypair -storetype PKCS12");
        }
        return file;
    }

    private static char[] password(String setting, String variable, Function<String, String> env) {
        String value = env.apply(variable);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(setting + " names the environment variable " + variable
                    + ", which is unset or empty: export the store's password in it");
        }
        return value.toCharArray();
    }

    private static KeyStore load(String setting, Path file, char[] password) {
        for (String type : new String[] {"PKCS12", "JKS"}) {
            try (InputStream in = Files.newInputStream(file)) {
                KeyStore store = KeyStore.getInstance(type);
                store.load(in, password);
                return store;
            } catch (IOException | GeneralSecurityException e) {
                // try the next type; the last failure is reported below
            }
        }
        throw new IllegalArgumentException(setting + " '" + file + "' could not be opened as a PKCS12 or JKS "
                + "keystore with the given password: check the file and the password variable");
    }

    @Override
    public String toString() {
        return "TLS with " + Objects.toString(keystore);
    }
}
