package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.javalin.Javalin;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /openapi.json} stays true: its paths and methods are the routes Javalin registered, its schemas the views. */
class OpenApiDocumentTest {

    private static JsonNode document;

    @BeforeAll
    static void read() throws Exception {
        try (InputStream in = OpenApiDocumentTest.class.getResourceAsStream(ServiceRoutes.OPENAPI_RESOURCE)) {
            document = Api.JSON.readTree(in);
        }
    }

    @Test
    void documentedPathsAndMethodsAreExactlyTheRegisteredRoutes() {
        Javalin app = Gateway.create(new GatewayContext(new NoState(), new NoState(), NO_WRITES, new InMemorySchemaRegistry(),
                () -> "", Clock.systemUTC()));

        TreeSet<String> registered = new TreeSet<>();
        app.unsafe.internalRouter.allHttpHandlers().forEach(parsed -> {
            // Each GET route answers HEAD too, with the same permission (Gateway): not described twice.
            if (parsed.endpoint.method.isHttpMethod() && !parsed.endpoint.method.name().equals("HEAD")) {
                registered.add(parsed.endpoint.method.name().toUpperCase() + " " + parsed.endpoint.path);
            }
        });
        TreeSet<String> documented = new TreeSet<>();
        document.path("paths").properties().forEach(path -> path.getValue().fieldNames()
                .forEachRemaining(method -> documented.add(method.toUpperCase() + " " + path.getKey())));

        assertThat(registered).isNotEmpty();
        assertThat(documented).isEqualTo(registered);
    }

    @Test
    void documentedSchemasHaveExactlyTheFieldsOfTheViews() {
        assertProperties("Task", TaskView.class);
        assertProperties("Attempt", TaskView.AttemptView.class);
        assertProperties("Waiting", TaskView.WaitingView.class);
        assertProperties("EstimatedStart", TaskView.StartView.class);
        assertProperties("Forecast", ForecastView.class);
        assertProperties("BacklogBin", ForecastView.BinView.class);
        assertProperties("TaskEstimate", ForecastView.TaskEstimateView.class);
        assertProperties("GangSpec", TaskView.GangView.class);
        assertProperties("Gang", GangView.class);
        assertProperties("GangMember", GangView.MemberView.class);
        assertProperties("Workflow", WorkflowView.class);
        assertProperties("Parent", TaskView.ParentView.class);
        assertProperties("Preference", TaskView.PreferenceView.class);
        assertProperties("Resources", ResourcesView.class);
        assertProperties("TaskPage", TaskPage.class);
        assertProperties("Snapshot", SnapshotView.class);
        assertProperties("Pool", PoolView.class);
        assertProperties("Group", PoolView.GroupView.class);
        assertProperties("History", HistoryView.class);
        assertProperties("HistoryGroup", HistoryView.GroupSeries.class);
        assertProperties("HistorySeries", HistoryView.Series.class);
        assertProperties("WorkerList", WorkerList.class);
        assertProperties("Worker", WorkerView.class);
        assertProperties("ErrorDetail", ErrorBody.Detail.class);
        assertProperties("Tenants", TenantsView.class);
        assertProperties("Sharing", SharingView.class);
        assertProperties("Tenant", TenantView.class);
        assertProperties("Quota", TenantView.QuotaView.class);
        assertProperties("Concurrency", TaskView.ConcurrencyView.class);
        assertProperties("RateLimit", TaskView.RateLimitView.class);
        assertProperties("WaitingClass", PoolView.ClassView.class);
        assertProperties("Limits", LimitsView.class);
        assertProperties("PoolLimits", PoolLimitsView.class);
        assertProperties("KeyUse", PoolLimitsView.KeyView.class);
        assertProperties("RateUse", PoolLimitsView.RateView.class);
        assertThat(properties("KeyLimit")).containsExactlyInAnyOrderElementsOf(LimitSetParser.KEY_FIELDS);
        assertThat(properties("RateLimitPolicy")).containsExactlyInAnyOrderElementsOf(LimitSetParser.RATE_FIELDS);
        assertThat(properties("LimitAccepted")).as("the LimitSet written, field for field")
                .containsExactlyElementsOf(LimitSet.getClassSchema().getFields().stream().map(f -> f.name()).toList());
        assertThat(properties("ConcurrencyRequest"))
                .containsExactlyInAnyOrderElementsOf(SubmissionParser.CONCURRENCY_FIELDS);
        assertThat(properties("RateLimitRequest")).containsExactlyInAnyOrderElementsOf(SubmissionParser.RATE_LIMIT_FIELDS);
        assertThat(properties("TenantPolicy")).containsExactlyInAnyOrderElementsOf(SharingPolicyParser.TENANT_FIELDS);
        assertThat(properties("QuotaPolicy")).containsExactlyInAnyOrderElementsOf(SharingPolicyParser.QUOTA_FIELDS);
        assertThat(properties("PoolSharing")).containsExactlyInAnyOrderElementsOf(SharingPolicyParser.POOL_FIELDS);
        assertThat(properties("TaskSubmission")).containsExactlyInAnyOrderElementsOf(SubmissionParser.FIELDS);
        assertThat(properties("GangSubmission")).containsExactlyInAnyOrderElementsOf(GangParser.FIELDS);
        assertThat(properties("ResourceRequest")).containsExactlyInAnyOrderElementsOf(SubmissionParser.RESOURCE_FIELDS);
        assertThat(document.at("/components/schemas/ErrorDetail/properties/code/enum"))
                .extracting(JsonNode::asText)
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    }

    private static void assertProperties(String schema, Class<? extends Record> view) {
        List<String> fields = Arrays.stream(view.getRecordComponents()).map(RecordComponent::getName).toList();
        assertThat(properties(schema)).as(schema).containsExactlyInAnyOrderElementsOf(fields);
    }

    private static List<String> properties(String schema) {
        List<String> names = new ArrayList<>();
        document.path("components").path("schemas").path(schema).path("properties").fieldNames()
                .forEachRemaining(names::add);
        return names;
    }

    private static final Commands NO_WRITES = new Commands() {
        @Override
        public void submit(TaskSubmitted task) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void submitAll(List<TaskSubmitted> tasks) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void submitGang(GangSubmitted gang) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void cancel(TaskCancelRequested cancel) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void drain(WorkerDraining drain) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void share(SharingPolicySet policy) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void limit(LimitSet limit) {
            throw new UnsupportedOperationException();
        }
    };
}
