// Whether an element sits outside every element the selector matches (itself included).
(element, selector) => !element.closest(selector)
