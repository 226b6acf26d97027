//! How the scripted server drafts a review protocol: asked (in the system
//! turn) to draft the protocol, it writes the four sections a planner is asked
//! for from the request's `Review question:` line and `Criteria:` list.

use crate::request::Turn;

/// A request to draft a review's protocol, answered; `None` for any other.
pub fn answer(turns: &[Turn]) -> Option<String> {
    let asks = turns.iter().any(|t| {
        t.role == "system"
            && t.text
                .to_lowercase()
                .contains("draft the review's protocol")
    });
    if !asks {
        return None;
    }
    let question = crate::reader::question_of(turns);
    let criteria = crate::reader::criteria_of(turns);
    let mut text = format!(
        "## Question\nThe review asks: {question} A paper is relevant when its own work addresses this, in these or equivalent words.\n\n## Criteria\n"
    );
    if criteria.is_empty() {
        text.push_str("- There are no criteria; relevance to the question alone decides.\n");
    }
    for criterion in criteria {
        text.push_str(&format!(
            "- {criterion}: met when the paper shows it in its own text; not met when it shows otherwise; unclear when silent.\n"
        ));
    }
    text.push_str(
        "\n## Scores\n- 9-10: answers the question directly with its own evidence.\n- 7-8: the question is a main concern.\n- 5-6: bears on it in part.\n- 3-4: mentions it in passing.\n- 0-2: about something else.\n\n## Borderline cases\n- Surveys of the area: score by how much of the survey addresses the question.\n",
    );
    Some(text)
}
