package io.cronoq.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The least-privilege ACLs of a cronoq deployment, for {@code Admin.createAcls}: submitters write
 * only the submissions topic; workers write only the workers and completions topics and read only
 * the assignments topic; only the scheduler (its application id as group and transactional-id
 * prefix) writes assignments, the journal and dead letters. Everyone reads the embedded schema topic.
 * {@code docs/security.md} gives the same as {@code kafka-acls} commands.
 *
 * @param prefix        the topic prefix ({@code cronoq.})
 * @param applicationId the scheduler's Kafka Streams application id ({@code cronoq-scheduler})
 * @param scheduler     the scheduler's principal, e.g. {@code User:scheduler}
 * @param submitter     a submitting application's (or the gateway's) principal
 * @param worker        the worker agents' principal
 */
public record CronoqAcls(String prefix, String applicationId, String scheduler, String submitter, String worker) {

    /** Every binding of this deployment. */
    public List<AclBinding> bindings() {
        List<AclBinding> out = new ArrayList<>();
        // The scheduler: every cronoq topic, its internal topics, its consumer group and its transactions.
        for (AclOperation op : List.of(AclOperation.ALL)) {
            out.add(allow(scheduler, ResourceType.TOPIC, prefix, PatternType.PREFIXED, op));
            out.add(allow(scheduler, ResourceType.TOPIC, applicationId, PatternType.PREFIXED, op));
            out.add(allow(scheduler, ResourceType.GROUP, applicationId, PatternType.PREFIXED, op));
            out.add(allow(scheduler, ResourceType.TRANSACTIONAL_ID, applicationId, PatternType.PREFIXED, op));
        }
        // Submitters: write submissions (and cancels, the same topic).
        out.add(allow(submitter, ResourceType.TOPIC, prefix + "submissions", PatternType.LITERAL, AclOperation.WRITE));
        out.add(allow(submitter, ResourceType.TOPIC, prefix + "submissions", PatternType.LITERAL, AclOperation.DESCRIBE));
        // Workers: write registrations, heartbeats and completions; read their assignments (assign()d
        // partition, offsets kept in the group cronoq-worker-<id>).
        for (String topic : List.of("workers", "completions")) {
            out.add(allow(worker, ResourceType.TOPIC, prefix + topic, PatternType.LITERAL, AclOperation.WRITE));
            out.add(allow(worker, ResourceType.TOPIC, prefix + topic, PatternType.LITERAL, AclOperation.DESCRIBE));
        }
        out.add(allow(worker, ResourceType.TOPIC, prefix + "assignments", PatternType.LITERAL, AclOperation.READ));
        out.add(allow(worker, ResourceType.TOPIC, prefix + "assignments", PatternType.LITERAL, AclOperation.DESCRIBE));
        out.add(allow(worker, ResourceType.GROUP, "cronoq-worker-", PatternType.PREFIXED, AclOperation.READ));
        // Everyone resolves schema ids from the embedded registry's topic; the scheduler registers every
        // schema at start, so only it writes there.
        for (String principal : List.of(submitter, worker)) {
            out.add(allow(principal, ResourceType.TOPIC, prefix + "_schemas", PatternType.LITERAL, AclOperation.READ));
            out.add(allow(principal, ResourceType.TOPIC, prefix + "_schemas", PatternType.LITERAL, AclOperation.DESCRIBE));
        }
        return out;
    }

    private static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern,
                                    AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }
}
