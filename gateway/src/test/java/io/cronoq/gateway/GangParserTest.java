package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A field the gang rules name, as the body of {@code POST /v1/gangs} spells it. */
class GangParserTest {

    @ParameterizedTest(name = "{0} ({1}) -> {2}")
    @CsvSource({
            "gangId,                    false, id",
            "sameLabel,                 false, sameLabel",
            "members,                   false, members",
            "members,                   true,  size",
            "members[3].tenant,         false, members[3].tenant",
            "members[0].timeoutMs,      true,  task.timeout",
            "members[2].retry.maxAttempts, false, members[2].maxAttempts",
            "members[1].preferences[0].weight, false, members[1].prefer[0].weight"})
    void aRulesFieldIsTheBodysName(String field, boolean template, String body) {
        assertThat(GangParser.bodyName(field, template)).isEqualTo(body);
    }
}
