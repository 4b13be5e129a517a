package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Asked for a task id without a pool, the gateway answers only when one pool uses the id. */
class TaskIdsTest {

    private static TaskView view(String pool) {
        return new TaskView("x", pool, "WAITING", Map.of(), null, "NORMAL", 0, null, "default", null, null, null, null,
                null, null, null, null, null, null, List.of(), List.of(), List.of(), null, List.of(), null);
    }

    @Test
    void noneOrOneIsTheAnswer() {
        assertThat(TaskIds.onlyOne("x", List.of())).isEmpty();
        assertThat(TaskIds.onlyOne("x", List.of(view("training")))).get().extracting(TaskView::pool)
                .isEqualTo("training");
    }

    @Test
    void anIdTwoPoolsUseIsA400NamingThePoolsAndTheFix() {
        assertThatThrownBy(() -> TaskIds.onlyOne("x", List.of(view("training"), view("inference"))))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.field()).isEqualTo("pool");
                    assertThat(e.getMessage()).contains("inference, training").contains("?pool=");
                });
    }
}
