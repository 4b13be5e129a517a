package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.InMemorySchemaRegistry;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * The Confluent schema registry's read paths in Javalin's test server over a registry in memory: subjects,
 * versions, a version (or the latest) and a schema by id, in the registry's media type, and its own error codes
 * for an unknown subject, version or id and a version that is not one; with tokens any credential reads them.
 */
class SchemaRoutesTest {

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private final int first = registry.register("t.submissions-value", TaskSubmitted.getClassSchema());
    private final int second = registry.register("t.submissions-value", WorkerEvent.getClassSchema());

    private GatewayContext context(Credentials credentials) {
        GatewayContext base = TestGateway.context(credentials, new MemoryState("now"), new RecordingCommands());
        return new GatewayContext(base.cluster(), base.local(), base.commands(), registry, base.metrics(), base.clock(),
                base.credentials(), base.history());
    }

    @Test
    void subjectsVersionsAndSchemasReadAsTheRegistryHasThem() {
        TestGateway.test(context(Credentials.none()), (server, client) -> {
            TestGateway.Answer subjects = get(client, "/subjects", null);
            TestGateway.Answer versions = get(client, "/subjects/t.submissions-value/versions", null);
            TestGateway.Answer one = get(client, "/subjects/t.submissions-value/versions/1", null);
            TestGateway.Answer latest = get(client, "/subjects/t.submissions-value/versions/latest", null);
            TestGateway.Answer byId = get(client, "/schemas/ids/" + first, null);

            assertThat(subjects.status()).isEqualTo(200);
            assertThat(subjects.header("Content-Type")).isEqualTo(ErrorMapping.SCHEMA_REGISTRY_JSON);
            assertThat(subjects.json().toString()).isEqualTo("[\"t.submissions-value\"]");
            assertThat(versions.json().toString()).isEqualTo("[1,2]");
            assertThat(one.json().path("subject").asText()).isEqualTo("t.submissions-value");
            assertThat(one.json().path("version").asInt()).isEqualTo(1);
            assertThat(one.json().path("id").asInt()).isEqualTo(first);
            assertThat(new Schema.Parser().parse(one.json().path("schema").asText()))
                    .isEqualTo(TaskSubmitted.getClassSchema());
            assertThat(latest.json().path("version").asInt()).isEqualTo(2);
            assertThat(latest.json().path("id").asInt()).isEqualTo(second);
            assertThat(byId.status()).isEqualTo(200);
            assertThat(new Schema.Parser().parse(byId.json().path("schema").asText()))
                    .isEqualTo(TaskSubmitted.getClassSchema());
        });
    }

    @Test
    void unknownSubjectsVersionsAndIdsAnswerTheRegistrysErrorCodes() {
        TestGateway.test(context(Credentials.none()), (server, client) -> {
            assertSchemaError(get(client, "/subjects/nothing-value/versions", null), 404, 40401);
            assertSchemaError(get(client, "/subjects/nothing-value/versions/latest", null), 404, 40401);
            assertSchemaError(get(client, "/subjects/t.submissions-value/versions/3", null), 404, 40402);
            assertSchemaError(get(client, "/subjects/t.submissions-value/versions/0", null), 422, 42202);
            assertSchemaError(get(client, "/subjects/t.submissions-value/versions/first", null), 422, 42202);
            assertSchemaError(get(client, "/schemas/ids/9999", null), 404, 40403);
            assertSchemaError(get(client, "/schemas/ids/one", null), 404, 40403);
        });
    }

    @Test
    void withTokensEveryCredentialReadsSchemasAndNoTokenIs401() {
        TestGateway.test(context(TestGateway.SECURED), (server, client) -> {
            assertThat(statuses(client, "/schemas/ids/" + first, "none", "admin", "viewer", "submitter", "worker"))
                    .containsExactly("none=401", "admin=200", "viewer=200", "submitter=200", "worker=200");
            assertThat(statuses(client, "/subjects", "none", "worker")).containsExactly("none=401", "worker=200");
        });
    }

    private static void assertSchemaError(TestGateway.Answer answer, int status, int errorCode) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.json().path("error_code").asInt()).as(answer.toString()).isEqualTo(errorCode);
        assertThat(answer.json().path("message").asText()).isNotBlank();
        assertThat(answer.header("Content-Type")).isEqualTo(ErrorMapping.SCHEMA_REGISTRY_JSON);
    }
}
