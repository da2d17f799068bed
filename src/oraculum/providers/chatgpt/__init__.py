"""The ChatGPT web app: vocabulary, page classification, configuration, composer, completion."""
