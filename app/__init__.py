"""RerunLens dashboard (Streamlit). Entry: `streamlit run app/main.py`."""
