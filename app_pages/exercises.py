"""Exercises: workshop questions, each with a link that opens the page set up for it, and its answer."""

import streamlit as st

from dashboard import navigation, texts, ui
from dashboard.features import exercises

ui.page()
st.markdown(texts.EXERCISES_INTRO)
for number, (exercise, answer) in enumerate(
    zip(exercises.EXERCISES, exercises.exercise_answers(), strict=True), start=1
):
    page = exercise.info
    with st.container(border=True):
        st.markdown(f"#### {number}. {exercise.title}")
        st.markdown(exercise.question_text())
        navigation.page_link(page.id, label=f"Open {page.title}", query_params=exercise.query())
        st.caption(f"Opens with {exercise.settings_text()}.")
        with st.expander("Answer"):
            st.markdown(answer)
